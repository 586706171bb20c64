package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.ResponseHead;

/** The operators without an argument: {@code ~all ~q ~s ~e ~a ~websocket}. */
final class Flag extends Filter {
  /** What a flag tests. */
  enum Kind {
    /** {@code ~all}: every flow. */
    ALL("all") {
      @Override
      boolean test(Flow flow) {
        return true;
      }
    },
    /** {@code ~q}: a request and no response yet (or ever, if the flow failed). */
    REQUEST_ONLY("q") {
      @Override
      boolean test(Flow flow) {
        return flow.request() != null && flow.response() == null;
      }
    },
    /** {@code ~s}: a final response. */
    RESPONSE("s") {
      @Override
      boolean test(Flow flow) {
        return flow.response() != null;
      }
    },
    /** {@code ~e}: the flow failed. */
    ERROR("e") {
      @Override
      boolean test(Flow flow) {
        return flow.error() != null;
      }
    },
    /** {@code ~a}: the response is a script, style sheet, image or font. */
    ASSET("a") {
      @Override
      boolean test(Flow flow) {
        ResponseHead response = flow.response();
        if (response == null) {
          return false;
        }
        for (Headers.Field f : response.headers().fields()) {
          if (f.name().equalsIgnoreCase("content-type") && isAsset(f.value())) {
            return true;
          }
        }
        return false;
      }
    },
    /** {@code ~websocket}: the exchange was upgraded to WebSocket. */
    WEBSOCKET("websocket") {
      @Override
      boolean test(Flow flow) {
        return flow.isWebSocket();
      }
    };

    final String code;

    Kind(String code) {
      this.code = code;
    }

    abstract boolean test(Flow flow);
  }

  /** mitmproxy's asset media types, less Flash: JavaScript, CSS, images, fonts (prefixes). */
  static final String[] ASSET_TYPES = {
      "text/javascript", "application/javascript", "application/x-javascript", "text/css", "image/", "font/",
      "application/font", "application/x-font"};

  private final Kind kind;

  Flag(Kind kind) {
    this.kind = kind;
  }

  static boolean isAsset(String contentType) {
    int start = 0;
    while (start < contentType.length() && contentType.charAt(start) == ' ') {
      start++;
    }
    for (String type : ASSET_TYPES) {
      if (contentType.regionMatches(true, start, type, 0, type.length())) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean test(Flow flow) {
    return kind.test(flow);
  }

  @Override
  Tri decide(Flow flow) {
    return kind == Kind.ALL ? Tri.YES : Tri.MAYBE;
  }

  @Override
  void sql(FilterSql.Builder out) {
    switch (kind) {
      case ALL -> out.sql("1");
      case REQUEST_ONLY -> out.sql("(method IS NOT NULL AND status IS NULL)");
      case RESPONSE -> out.sql("(status IS NOT NULL)");
      // a flow written in flight and read back (Loupe stopped first) never ended: it counts as failed
      case ERROR -> out.sql("(error_kind IS NOT NULL OR state = 0)");
      case ASSET -> out.asset("res_type");
      case WEBSOCKET -> out.sql("(websocket = 1)");
    }
  }

  @Override
  void print(StringBuilder out) {
    out.append('~').append(kind.code);
  }
}
