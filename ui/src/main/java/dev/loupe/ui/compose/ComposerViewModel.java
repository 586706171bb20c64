package dev.loupe.ui.compose;

import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.ui.body.JsonDocument;
import dev.loupe.ui.common.FxThread;
import dev.loupe.ui.common.HeaderEntry;
import dev.loupe.ui.detail.BodyInput;
import dev.loupe.ui.detail.BodyViewModel;
import dev.loupe.ui.detail.HeaderRow;
import dev.loupe.ui.detail.HexDump;
import dev.loupe.ui.flows.FlowRow;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The composer's model: a request being written or edited (method, URL, header rows, body,
 * protocol), sending it through the {@link Replayer} (the engine records it as a new flow, linked to
 * the flow it replays when it came from one), the answer (status, headers, body viewer, flow id),
 * and the history of sent requests ({@link ComposerHistory}).
 *
 * <h3>Bodies</h3>
 * A text body (valid UTF-8 without NUL bytes) is edited as text. Any other body is kept as bytes
 * and sent unchanged ({@link #binaryBodyProperty()}); {@link #clearBody()} drops it to write text
 * instead. {@code Content-Length}, when present (or needed for a body), is set to the body's size on
 * the wire when sending.
 *
 * <p>UI thread only; the replayer's completion and history writes come back through {@link FxThread}.
 */
public final class ComposerViewModel {
  /** The methods the method box offers (any other token can be typed). */
  public static final List<String> METHODS = List.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS");

  private final Replayer replayer;
  private final ComposerHistory historyFile;
  private final FxThread fx;
  private final Executor background;
  private final Clock clock;
  private final StringProperty method = new SimpleStringProperty(this, "method", "GET");
  private final StringProperty url = new SimpleStringProperty(this, "url", "");
  private final StringProperty body = new SimpleStringProperty(this, "body", "");
  private final ObjectProperty<Replayer.Protocol> protocol = new SimpleObjectProperty<>(this, "protocol",
      Replayer.Protocol.AUTO);
  private final ObservableList<HeaderEntry> headers = FXCollections.observableArrayList();
  private final ReadOnlyObjectWrapper<byte[]> binaryBody = new ReadOnlyObjectWrapper<>(this, "binaryBody");
  private final ReadOnlyLongWrapper replayOf = new ReadOnlyLongWrapper(this, "replayOf", -1);
  private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper(this, "error", "");
  private final ReadOnlyBooleanWrapper sending = new ReadOnlyBooleanWrapper(this, "sending");
  private final ReadOnlyStringWrapper responseStatus = new ReadOnlyStringWrapper(this, "responseStatus", "");
  private final ReadOnlyLongWrapper flowId = new ReadOnlyLongWrapper(this, "flowId", -1);
  private final ReadOnlyObjectWrapper<Flow> lastFlow = new ReadOnlyObjectWrapper<>(this, "lastFlow");
  private final ObservableList<HeaderRow> responseHeaders = FXCollections.observableArrayList();
  private final BodyViewModel responseBody;
  private final ObservableList<ComposerHistory.Entry> history = FXCollections.observableArrayList();
  /** The user's opt-in to keeping credential headers in the history file (off by default). */
  private final javafx.beans.property.BooleanProperty keepSecretsInHistory =
      new javafx.beans.property.SimpleBooleanProperty(this, "keepSecretsInHistory");
  /** Bumped by every send; a completion of an older send only updates the history. */
  private long generation;

  public ComposerViewModel(Replayer replayer, ComposerHistory history, FxThread fx, Executor background) {
    this(replayer, history, fx, background, Clock.systemUTC());
  }

  ComposerViewModel(Replayer replayer, ComposerHistory history, FxThread fx, Executor background, Clock clock) {
    this.replayer = replayer;
    this.historyFile = history;
    this.fx = fx;
    this.background = background;
    this.clock = clock;
    this.responseBody = new BodyViewModel(fx, background);
    this.history.setAll(history.load());
    keepSecretsInHistory.set(history.keepsSecrets());
    keepSecretsInHistory.addListener((obs, was, on) -> {
      historyFile.keepSecrets(on);
      saveHistory(List.copyOf(this.history)); // switching it off scrubs what the file already holds
    });
  }

  /** Fills the editor with {@code d} (edit and replay: {@code replayOf} is the flow it came from, else -1). */
  public void load(RequestDraft d, Replayer.Protocol p, long replayOf) {
    method.set(d.method());
    url.set(d.url());
    headers.setAll(d.headers().fields().stream().map(f -> new HeaderEntry(f.name(), f.value())).toList());
    setBody(d.body());
    protocol.set(p);
    this.replayOf.set(replayOf);
    error.set("");
  }

  /** Fills the editor with a history entry (a new request: not linked to a flow). */
  public void load(ComposerHistory.Entry e) {
    load(e.request(), e.protocol(), -1);
    if (e.bodyOmitted()) {
      error.set("The body of this request was too large to keep in the history");
    } else if (!e.redacted().isEmpty()) {
      error.set("Not kept in the history (secrets): " + String.join(", ", e.redacted())
          + ". Enter them again, or tick \"Keep secrets in history\".");
    }
  }

  private void setBody(byte[] b) {
    String text = text(b);
    if (text == null) {
      binaryBody.set(b);
      body.set("");
    } else {
      binaryBody.set(null);
      body.set(text);
    }
  }

  /** Drops a binary body, so a text one can be written. */
  public void clearBody() {
    binaryBody.set(null);
    body.set("");
  }

  public HeaderEntry addHeader(String name, String value) {
    HeaderEntry e = new HeaderEntry(name, value);
    headers.add(e);
    return e;
  }

  public void removeHeader(HeaderEntry e) {
    headers.remove(e);
  }

  /** The body bytes as they stand: the binary body, or the text as UTF-8. */
  public byte[] bodyBytes() {
    byte[] b = binaryBody.get();
    return b != null ? b : body.get().getBytes(StandardCharsets.UTF_8);
  }

  /** A hex dump of {@link #bodyBytes()} (the hex view). */
  public String hexDump() {
    return HexDump.format(bodyBytes());
  }

  /** Re-indents a JSON text body; false (with {@link #errorProperty()} saying why) when it is not JSON. */
  public boolean prettyPrintJson() {
    if (binaryBody.get() != null) {
      error.set("The body is binary, not JSON");
      return false;
    }
    try {
      body.set(JsonDocument.parse(bodyBytes()).pretty());
      error.set("");
      return true;
    } catch (JsonDocument.JsonSyntaxException e) {
      error.set("The body is not JSON: " + e.getMessage());
      return false;
    }
  }

  /**
   * The request as edited: header rows with neither name nor value are skipped, and
   * {@code Content-Length} is set to the body's wire size when the headers have one or the body is
   * not empty (and there is no {@code Transfer-Encoding}).
   *
   * @throws IllegalArgumentException with a message for the user when the method, URL or a header
   *     is not valid
   */
  public RequestDraft draft() {
    List<Headers.Field> fields = new ArrayList<>();
    int row = 0;
    for (HeaderEntry e : headers) {
      row++;
      String n = e.nameProperty().get() == null ? "" : e.nameProperty().get().trim();
      String v = e.valueProperty().get() == null ? "" : e.valueProperty().get().trim();
      if (n.isEmpty() && v.isEmpty()) {
        continue;
      }
      if (n.isEmpty() || !n.chars().allMatch(c -> c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0)) {
        throw new IllegalArgumentException("Header " + row + ": invalid name \"" + n + "\"");
      }
      if (v.chars().anyMatch(c -> c == '\r' || c == '\n' || c == 0)) {
        throw new IllegalArgumentException("Header " + n + ": the value has a line break");
      }
      fields.add(new Headers.Field(n, v));
    }
    Headers h = Headers.of(fields);
    RequestDraft d = new RequestDraft(method.get() == null ? "" : method.get().trim(),
        url.get() == null ? "" : url.get().trim(), "HTTP/1.1", h, bodyBytes());
    d.toHead(); // validates method and URL
    byte[] wire = d.wireBody();
    if (!h.contains("transfer-encoding") && (h.contains("content-length") || wire.length > 0)) {
      d = d.withHeaders(h.with(h.contains("content-length") ? contentLengthName(h) : "Content-Length",
          Integer.toString(wire.length)));
    }
    return d;
  }

  private static String contentLengthName(Headers h) {
    return h.fields().stream().filter(f -> f.name().equalsIgnoreCase("content-length")).findFirst()
        .map(Headers.Field::name).orElse("Content-Length");
  }

  /**
   * Sends the request: false (with {@link #errorProperty()} saying why) when it is not valid or
   * could not be handed to the engine. The answer arrives later in the response properties.
   */
  public boolean send() {
    RequestDraft d;
    try {
      d = draft();
    } catch (IllegalArgumentException e) {
      error.set(e.getMessage());
      return false;
    }
    Replayer.Protocol p = protocol.get();
    long link = replayOf.get();
    CompletionStage<Flow> sent;
    try {
      sent = replayer.send(d, p, link);
    } catch (IllegalArgumentException e) {
      error.set(e.getMessage());
      return false;
    } catch (RuntimeException e) {
      error.set("Could not send: " + e.getMessage());
      return false;
    }
    long gen = ++generation;
    error.set("");
    sending.set(true);
    responseStatus.set("Sending…");
    flowId.set(-1);
    lastFlow.set(null);
    responseHeaders.clear();
    responseBody.clear();
    remember(new ComposerHistory.Entry(clock.instant(), d, p, false));
    sent.whenComplete((flow, failure) -> fx.post(() -> {
      if (gen == generation) {
        show(flow, failure);
      }
    }));
    return true;
  }

  private void remember(ComposerHistory.Entry e) {
    List<ComposerHistory.Entry> now = ComposerHistory.add(history, e);
    history.setAll(now);
    saveHistory(now);
  }

  private void saveHistory(List<ComposerHistory.Entry> now) {
    background.execute(() -> {
      try {
        historyFile.save(now);
      } catch (IOException | RuntimeException ex) {
        fx.post(() -> error.set("Could not save the history to " + historyFile.file() + ": " + ex.getMessage()));
      }
    });
  }

  private void show(Flow flow, Throwable failure) {
    sending.set(false);
    if (failure != null || flow == null) {
      Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
          ? failure.getCause() : failure;
      responseStatus.set("Failed: " + (cause == null ? "no flow" : cause.getMessage()));
      return;
    }
    lastFlow.set(flow);
    flowId.set(flow.id());
    ResponseHead res = flow.response();
    if (res == null) {
      responseStatus.set("No response" + (flow.error() == null ? ""
          : " — " + flow.error().kind() + ": " + flow.error().message()));
      return;
    }
    responseStatus.set(res.status() + (res.reason().isEmpty() ? "" : " " + res.reason())
        + (flow.serverProtocol() == null ? "" : " · " + flow.serverProtocol())
        + " · " + FlowRow.humanBytes(flow.responseBody().size())
        + (flow.error() == null ? "" : " · " + flow.error().kind() + ": " + flow.error().message()));
    responseHeaders.setAll(res.headers().fields().stream().map(f -> HeaderRow.field(f.name(), f.value())).toList());
    responseBody.loadFresh(BodyInput.of(flow.responseBody(), res.headers()));
  }

  /** The body as text when it is valid UTF-8 without NUL bytes, else null. */
  static String text(byte[] b) {
    for (byte x : b) {
      if (x == 0) {
        return null;
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  public StringProperty methodProperty() {
    return method;
  }

  public StringProperty urlProperty() {
    return url;
  }

  /** The text body (empty while a binary body is loaded). */
  public StringProperty bodyProperty() {
    return body;
  }

  public ObjectProperty<Replayer.Protocol> protocolProperty() {
    return protocol;
  }

  public ObservableList<HeaderEntry> headers() {
    return headers;
  }

  /** The loaded binary body (sent unchanged), or null when the body is text. */
  public ReadOnlyObjectProperty<byte[]> binaryBodyProperty() {
    return binaryBody.getReadOnlyProperty();
  }

  /** The flow this request replays, or -1. */
  public ReadOnlyLongProperty replayOfProperty() {
    return replayOf.getReadOnlyProperty();
  }

  /** Why the request cannot be sent (or the history not saved); empty when all is well. */
  public ReadOnlyStringProperty errorProperty() {
    return error.getReadOnlyProperty();
  }

  public ReadOnlyBooleanProperty sendingProperty() {
    return sending.getReadOnlyProperty();
  }

  /** {@code 200 OK · HTTP/2 · 1.2 KiB}, {@code Sending…}, {@code No response — ...}; empty before a send. */
  public ReadOnlyStringProperty responseStatusProperty() {
    return responseStatus.getReadOnlyProperty();
  }

  /** The id of the flow the last send made, or -1. */
  public ReadOnlyLongProperty flowIdProperty() {
    return flowId.getReadOnlyProperty();
  }

  public ReadOnlyObjectProperty<Flow> lastFlowProperty() {
    return lastFlow.getReadOnlyProperty();
  }

  public ObservableList<HeaderRow> responseHeaders() {
    return FXCollections.unmodifiableObservableList(responseHeaders);
  }

  public BodyViewModel responseBody() {
    return responseBody;
  }

  /** Sent requests, newest first. */
  /**
   * Whether the history file keeps credential headers ({@code Authorization}, {@code Cookie}, ...) and
   * URL passwords; off by default. Saved with the history; switching it off scrubs the file.
   */
  public javafx.beans.property.BooleanProperty keepSecretsInHistoryProperty() {
    return keepSecretsInHistory;
  }

  public ObservableList<ComposerHistory.Entry> history() {
    return FXCollections.unmodifiableObservableList(history);
  }
}
