package dev.loupe.ui.detail;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/** Pure functions behind "Copy URL" and "Copy as cURL" (for a POSIX shell). */
public final class CopyAs {
  /** Fields curl writes itself or that do not belong on a new connection. */
  private static final Set<String> SKIPPED = Set.of(
      "host", "content-length", "connection", "proxy-connection", "keep-alive", "transfer-encoding", "te",
      "upgrade", "http2-settings");

  private CopyAs() {}

  /** The request's absolute URL, or null when the flow has no request yet. */
  public static String url(Flow flow) {
    RequestHead r = flow.request();
    return r == null ? null : r.url();
  }

  /**
   * A curl command line that sends the same request: method, URL, header fields, and the body
   * when it is text (a binary body is left out, with a comment saying so). Null when there is no
   * request.
   */
  public static String curl(Flow flow) {
    RequestHead r = flow.request();
    if (r == null) {
      return null;
    }
    StringBuilder sb = new StringBuilder("curl");
    byte[] body = flow.requestBody().capturedSize() > 0 ? flow.requestBody().bytes() : new byte[0];
    boolean hasBody = body.length > 0;
    if (!(r.method().equals("GET") && !hasBody) && !(r.method().equals("POST") && hasBody)) {
      sb.append(" -X ").append(quote(r.method()));
    }
    String proto = flow.clientProtocol();
    if ("HTTP/2".equals(proto)) {
      sb.append(" --http2");
    } else if ("HTTP/3".equals(proto)) {
      sb.append(" --http3");
    }
    sb.append(' ').append(quote(r.url()));
    boolean compressed = false;
    for (Headers.Field f : r.headers().fields()) {
      String name = f.name().toLowerCase(Locale.ROOT);
      if (SKIPPED.contains(name) || name.startsWith(":")) {
        continue;
      }
      if (name.equals("accept-encoding")) {
        compressed = true;
      }
      sb.append(" \\\n  -H ").append(quote(f.name() + ": " + f.value()));
    }
    if (hasBody) {
      if (ViewerChoice.looksLikeText(body) && !flow.requestBody().truncated()) {
        String text = new String(body, ContentType.parse(r.headers().get("content-type")).charset(StandardCharsets.UTF_8));
        sb.append(" \\\n  --data-binary ").append(quote(text));
      } else {
        sb.append(" \\\n  --data-binary @body.bin  # the ").append(flow.requestBody().size())
            .append("-byte body is binary or was not captured whole: save it as body.bin");
      }
    }
    if (compressed) {
      sb.append(" \\\n  --compressed");
    }
    return sb.toString();
  }

  /** POSIX single quotes: {@code it's} becomes {@code 'it'\''s'}. */
  static String quote(String s) {
    if (!s.isEmpty() && s.chars().allMatch(c -> Character.isLetterOrDigit(c) || "-_./:=@,+%".indexOf(c) >= 0)) {
      return s;
    }
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
