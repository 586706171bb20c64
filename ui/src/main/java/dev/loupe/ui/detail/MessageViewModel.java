package dev.loupe.ui.detail;

import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.ui.common.FxThread;
import dev.loupe.ui.flows.FlowRow;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.Executor;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import dev.loupe.ui.body.ContentType;
import dev.loupe.ui.body.ContentDecoder;

/**
 * One side of a flow, the request or the response: its header table (with 1xx heads, query
 * parameters and trailers as sections), its raw HTTP/1-style text and its {@link BodyViewModel}.
 * Updated by {@link DetailViewModel}; UI thread only.
 */
public final class MessageViewModel {
  /** Which message of the flow. */
  public enum Side {
    REQUEST,
    RESPONSE
  }

  private final Side side;
  private final FxThread fx;
  private final LatestOnly background;
  private final ObservableList<HeaderRow> headers = FXCollections.observableArrayList();
  private final ReadOnlyStringWrapper raw = new ReadOnlyStringWrapper(this, "raw", "");
  private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary", "");
  private final ReadOnlyBooleanWrapper present = new ReadOnlyBooleanWrapper(this, "present");
  private final BodyViewModel body;
  /** What was shown last, to skip work when nothing changed. */
  private Object shownKey;
  private long rawGeneration;

  MessageViewModel(Side side, FxThread fx, Executor background) {
    this.side = side;
    this.fx = fx;
    this.background = new LatestOnly(background);
    this.body = new BodyViewModel(fx, background);
  }

  public Side side() {
    return side;
  }

  public ObservableList<HeaderRow> headers() {
    return FXCollections.unmodifiableObservableList(headers);
  }

  /** The message as HTTP/1-style text (head, a body preview, trailers). */
  public ReadOnlyStringProperty rawProperty() {
    return raw.getReadOnlyProperty();
  }

  /** {@code POST /api HTTP/2} or {@code 200 OK · application/json · 1.2 KiB}; empty when absent. */
  public ReadOnlyStringProperty summaryProperty() {
    return summary.getReadOnlyProperty();
  }

  /** Whether the flow has this message (yet). */
  public ReadOnlyBooleanProperty presentProperty() {
    return present.getReadOnlyProperty();
  }

  public BodyViewModel body() {
    return body;
  }

  /** Shows this side of {@code flow}; {@code fresh} when it is another flow than before. */
  void update(Flow flow, boolean fresh) {
    RequestHead req = flow.request();
    ResponseHead res = flow.response();
    Body b = side == Side.REQUEST ? flow.requestBody() : flow.responseBody();
    Headers trailers = side == Side.REQUEST ? flow.requestTrailers() : flow.responseTrailers();
    List<ResponseHead> info = List.copyOf(flow.informationalResponses());
    Headers heads = side == Side.REQUEST ? (req == null ? null : req.headers()) : (res == null ? null : res.headers());
    Object key = java.util.Arrays.asList(flow.id(), side == Side.REQUEST ? req : res, b.size(), b.isComplete(),
        b.truncated(), trailers, info.size());
    if (!fresh && key.equals(shownKey)) {
      return;
    }
    shownKey = key;
    if (heads == null) {
      present.set(false);
      headers.clear();
      summary.set("");
      raw.set(side == Side.RESPONSE && !info.isEmpty() ? RawText.response(info.subList(0, info.size() - 1),
          info.get(info.size() - 1), new byte[0], 0, Headers.EMPTY) : "");
      if (fresh) {
        body.clear();
      }
      return;
    }
    present.set(true);
    headers.setAll(rows(req, res, info, trailers));
    summary.set(side == Side.REQUEST
        ? req.method() + " " + req.url() + " " + req.httpVersion()
        : responseSummary(res, b.size()));
    BodyInput in = BodyInput.of(b, heads);
    if (fresh) {
      body.loadFresh(in);
    } else {
      body.load(in);
    }
    long gen = ++rawGeneration;
    long size = b.size();
    background.submit(() -> {
      String text;
      try {
        byte[] preview = readPrefix(in.source(), RawText.BODY_PREVIEW);
        text = side == Side.REQUEST ? RawText.request(req, preview, size, trailers)
            : RawText.response(info, res, preview, size, trailers);
      } catch (IOException | RuntimeException e) {
        text = "could not read the body: " + e.getMessage();
      }
      String done = text;
      fx.post(() -> {
        if (gen == rawGeneration) {
          raw.set(done);
        }
      });
    });
  }

  void clear() {
    shownKey = null;
    rawGeneration++;
    headers.clear();
    raw.set("");
    summary.set("");
    present.set(false);
    body.clear();
  }

  private List<HeaderRow> rows(RequestHead req, ResponseHead res, List<ResponseHead> info, Headers trailers) {
    java.util.ArrayList<HeaderRow> out = new java.util.ArrayList<>();
    if (side == Side.REQUEST) {
      fields(req.headers(), out);
      String query = req.query();
      if (query != null && !query.isEmpty()) {
        out.add(HeaderRow.section("Query"));
        for (FormUrlEncoded.Param p : FormUrlEncoded.parse(query, java.nio.charset.StandardCharsets.UTF_8)) {
          out.add(HeaderRow.field(p.name(), p.value()));
        }
      }
    } else {
      for (ResponseHead i : info) {
        out.add(HeaderRow.section(statusText(i)));
        fields(i.headers(), out);
      }
      if (!info.isEmpty()) {
        out.add(HeaderRow.section(statusText(res)));
      }
      fields(res.headers(), out);
    }
    if (!trailers.isEmpty()) {
      out.add(HeaderRow.section("Trailers"));
      fields(trailers, out);
    }
    return out;
  }

  private static String responseSummary(ResponseHead res, long size) {
    String type = ContentType.parse(res.headers().get("content-type")).mediaType();
    return statusText(res) + (type.isEmpty() ? "" : " · " + type) + " · " + FlowRow.humanBytes(size);
  }

  private static String statusText(ResponseHead h) {
    return h.status() + (h.reason().isEmpty() ? "" : " " + h.reason());
  }

  private static void fields(Headers h, List<HeaderRow> out) {
    for (Headers.Field f : h.fields()) {
      out.add(HeaderRow.field(f.name(), f.value()));
    }
  }

  static byte[] readPrefix(ContentDecoder.Source source, int max) throws IOException {
    try (InputStream in = source.open()) {
      return in.readNBytes(max);
    }
  }
}
