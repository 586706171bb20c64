package dev.loupe.ui.detail;

import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.ui.common.FxThread;
import dev.loupe.ui.diff.DiffViewModel;
import dev.loupe.ui.flows.FlowRow;
import java.net.InetSocketAddress;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javax.security.auth.x500.X500Principal;

/**
 * The detail pane's model: the selected flow's request and response ({@link MessageViewModel}),
 * its connection and TLS facts ({@link InfoRow}s), timing phases for the waterfall, and its
 * WebSocket messages with the selected one's viewer. Knows no JavaFX nodes.
 *
 * <p>{@link #show(Flow)} shows a flow; calling it again with the same flow (after a
 * {@code FlowEvent}) refreshes what changed and keeps the user's viewer choices, and does nothing
 * when nothing changed, so the caller may call it on every table update. Bodies are decoded on the
 * background executor.
 *
 * <p>UI thread only ({@link FxThread}); the background executor only runs pure work.
 */
public final class DetailViewModel implements AutoCloseable {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());
  private static final DateTimeFormatter DATE_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

  private final ExecutorService owned;
  private final MessageViewModel request;
  private final MessageViewModel response;
  private final ReadOnlyObjectWrapper<Flow> flow = new ReadOnlyObjectWrapper<>(this, "flow");
  private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper(this, "title", "");
  private final ObservableList<InfoRow> connection = FXCollections.observableArrayList();
  private final ObservableList<TimingPhase> timing = FXCollections.observableArrayList();
  private final ReadOnlyDoubleWrapper totalMs = new ReadOnlyDoubleWrapper(this, "totalMs", -1);
  private final ReadOnlyBooleanWrapper webSocket = new ReadOnlyBooleanWrapper(this, "webSocket");
  private final ObservableList<WebSocketRow> messages = FXCollections.observableArrayList();
  private final ReadOnlyObjectWrapper<WebSocketRow> selectedMessage = new ReadOnlyObjectWrapper<>(this, "selectedMessage");
  private final BodyViewModel messageBody;
  private final ReadOnlyStringWrapper modifiedBy = new ReadOnlyStringWrapper(this, "modifiedBy", "");
  private final ReadOnlyStringWrapper replayOf = new ReadOnlyStringWrapper(this, "replayOf", "");
  private final ReadOnlyStringWrapper notes = new ReadOnlyStringWrapper(this, "notes", "");
  private final DiffViewModel originalVsModified;
  private Object shownKey;
  private Object diffKey;

  /** Decodes on a daemon thread of its own; {@link #close()} stops it. */
  public DetailViewModel(FxThread fx) {
    this(fx, Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "loupe-ui-detail");
      t.setDaemon(true);
      return t;
    }), true);
  }

  /** Decodes on {@code background} (tests pass {@code Runnable::run}). */
  public DetailViewModel(FxThread fx, Executor background) {
    this(fx, background, false);
  }

  private DetailViewModel(FxThread fx, Executor background, boolean own) {
    this.owned = own ? (ExecutorService) background : null;
    this.request = new MessageViewModel(MessageViewModel.Side.REQUEST, fx, background);
    this.response = new MessageViewModel(MessageViewModel.Side.RESPONSE, fx, background);
    this.messageBody = new BodyViewModel(fx, background);
    this.originalVsModified = new DiffViewModel(fx, background);
  }

  /**
   * Shows {@code f}, or refreshes it when it is the flow already shown (what changed is updated,
   * the viewer choices stay). Null clears.
   */
  public void show(Flow f) {
    if (f == null) {
      clear();
      return;
    }
    boolean fresh = flow.get() == null || flow.get().id() != f.id();
    // What can change on a recorded flow; compared by equals (records), cheap enough for every table pulse.
    Object key = java.util.Arrays.asList(f.id(), f.state(), f.tier(), f.request(), f.response(),
        f.requestBody().size(), f.responseBody().size(), f.requestTrailers(), f.responseTrailers(),
        f.informationalResponses().size(), f.webSocketMessages().size(), f.clientConnection(), f.serverConnection(),
        f.clientProtocol(), f.serverProtocol(), f.error(), f.webSocketCloseCode(), f.tunnelBytesClientToServer(),
        f.tunnelBytesServerToClient(), f.modifiedBy().size(), f.notes().size(), f.replayOf(), f.originalRequest(),
        f.originalResponse(), f.paused());
    if (!fresh && key.equals(shownKey)) {
      return;
    }
    shownKey = key;
    flow.set(f);
    title.set(title(f));
    request.update(f, fresh);
    response.update(f, fresh);
    connection.setAll(connectionRows(f));
    timing.setAll(TimingPhase.of(f.timings()));
    totalMs.set(f.state() == FlowState.IN_FLIGHT ? -1 : f.timings().totalMs());
    webSocket.set(f.isWebSocket());
    updateMessages(f, fresh);
    updateModified(f);
  }

  /** The "modified by" line, the replay link, and the original-vs-modified comparison (when it changed). */
  private void updateModified(Flow f) {
    List<String> by = List.copyOf(f.modifiedBy());
    modifiedBy.set(modifiedByText(by));
    notes.set(String.join("\n", f.notes()));
    replayOf.set(f.replayOf() < 0 ? "" : "Replay of #" + f.replayOf());
    if (by.isEmpty()) {
      if (diffKey != null) {
        diffKey = null;
        originalVsModified.clear();
      }
      return;
    }
    Object key = java.util.Arrays.asList(f.id(), by.size(), f.originalRequest(), f.originalResponse(), f.response(),
        f.state(), f.requestBody().size(), f.responseBody().size());
    if (!key.equals(diffKey)) {
      diffKey = key;
      originalVsModified.originalVsModified(f);
    }
  }

  /**
   * {@code Modified by: rule "X", breakpoint: request edited}, or empty. A rule that changed both
   * the request and the response is recorded twice on the flow and named once here.
   */
  static String modifiedByText(List<String> by) {
    return by.isEmpty() ? "" : "Modified by: " + String.join(", ", new java.util.LinkedHashSet<>(by));
  }

  /** Shows the current flow again (after it changed). */
  public void refresh() {
    Flow f = flow.get();
    if (f != null) {
      show(f);
    }
  }

  /** Shows nothing. */
  public void clear() {
    shownKey = null;
    flow.set(null);
    title.set("");
    request.clear();
    response.clear();
    connection.clear();
    timing.clear();
    totalMs.set(-1);
    webSocket.set(false);
    messages.clear();
    selectedMessage.set(null);
    messageBody.clear();
    modifiedBy.set("");
    notes.set("");
    replayOf.set("");
    diffKey = null;
    originalVsModified.clear();
  }

  /** Shows {@code row}'s payload in {@link #messageBody()}; null shows nothing. */
  public void selectMessage(WebSocketRow row) {
    selectedMessage.set(row);
    if (row == null) {
      messageBody.clear();
      return;
    }
    WebSocketMessage m = row.message();
    String type = m.opcode() == WebSocketMessage.TEXT ? "text/plain; charset=utf-8" : null;
    messageBody.loadFresh(BodyInput.of(m.payload(), m.length(), type));
  }

  private void updateMessages(Flow f, boolean fresh) {
    if (fresh) {
      messages.clear();
      selectedMessage.set(null);
      messageBody.clear();
    }
    List<WebSocketMessage> all = List.copyOf(f.webSocketMessages());
    if (all.size() > messages.size()) {
      List<WebSocketRow> added = new ArrayList<>(all.size() - messages.size());
      for (int i = messages.size(); i < all.size(); i++) {
        added.add(WebSocketRow.of(i + 1, all.get(i)));
      }
      messages.addAll(added);
    }
  }

  static String title(Flow f) {
    if (f.request() == null) {
      return "Flow #" + f.id();
    }
    StringBuilder sb = new StringBuilder(f.request().method()).append(' ').append(f.request().url());
    if (f.response() != null) {
      sb.append("  →  ").append(f.response().status());
    } else if (f.error() != null) {
      sb.append("  →  ").append(f.error().kind());
    }
    return sb.toString();
  }

  static List<InfoRow> connectionRows(Flow f) {
    List<InfoRow> rows = new ArrayList<>();
    rows.add(InfoRow.section("Flow"));
    rows.add(InfoRow.of("Id", Long.toString(f.id())));
    rows.add(InfoRow.of("Started", DATE_TIME.format(f.startedAt())));
    rows.add(InfoRow.of("State", f.state().name().toLowerCase(Locale.ROOT).replace('_', ' ')));
    rows.add(InfoRow.of("Tier", f.tier() == dev.loupe.engine.flow.FlowTier.FULL
        ? "full (a rule or breakpoint saw and could edit it)" : f.tier().name().toLowerCase(Locale.ROOT)));
    if (f.replayOf() >= 0) {
      rows.add(InfoRow.of("Replay of", "#" + f.replayOf()));
    }
    if (!f.modifiedBy().isEmpty()) {
      rows.add(InfoRow.of("Modified by", String.join(", ", new java.util.LinkedHashSet<>(f.modifiedBy()))));
    }
    for (String note : f.notes()) {
      rows.add(InfoRow.of("Note", note));
    }
    rows.add(InfoRow.of("Client protocol", f.clientProtocol() == null ? null
        : f.clientProtocol() + streamId(f.clientStreamId())));
    rows.add(InfoRow.of("Server protocol", f.serverProtocol() == null ? null
        : f.serverProtocol() + streamId(f.serverStreamId())));
    if (f.http3Status() != null) {
      rows.add(InfoRow.of("HTTP/3 to the origin", f.http3Status()));
    }
    if (f.clientQuicConnectionId() != null) {
      rows.add(InfoRow.of("QUIC connection (client)", f.clientQuicConnectionId()));
    }
    if (f.serverQuicConnectionId() != null) {
      rows.add(InfoRow.of("QUIC connection (server)", f.serverQuicConnectionId()));
    }
    if (f.isTunnel()) {
      rows.add(InfoRow.of("Tunnel bytes", "client → server " + FlowRow.humanBytes(f.tunnelBytesClientToServer())
          + ", server → client " + FlowRow.humanBytes(f.tunnelBytesServerToClient())));
    }
    if (f.isWebSocket()) {
      rows.add(InfoRow.of("WebSocket close", f.webSocketCloseCode() < 0 ? "open"
          : f.webSocketCloseCode() + (f.webSocketCloseReason() == null || f.webSocketCloseReason().isEmpty() ? ""
              : " " + f.webSocketCloseReason())));
    }
    if (f.error() != null) {
      rows.add(InfoRow.of("Error", f.error().kind() + ": " + f.error().message()));
    }
    leg("Client connection", f.clientConnection(), false, rows);
    leg("Server connection", f.serverConnection(), true, rows);
    return rows;
  }

  private static String streamId(int id) {
    return id < 0 ? "" : " (stream " + id + ")";
  }

  private static void leg(String title, ConnectionInfo c, boolean server, List<InfoRow> rows) {
    rows.add(InfoRow.section(title));
    if (c == null) {
      rows.add(InfoRow.of("Connection", "none"));
      return;
    }
    rows.add(InfoRow.of(server ? "Server address" : "Client address", address(c.remoteAddress())));
    rows.add(InfoRow.of("Loupe address", address(c.localAddress())));
    rows.add(InfoRow.of("Connection id", c.id() + (c.reused() ? " (reused)" : " (new)")));
    TlsInfo tls = c.tls();
    if (tls == null) {
      rows.add(InfoRow.of("TLS", "none (cleartext)"));
      return;
    }
    rows.add(InfoRow.of("TLS version", tls.protocol()));
    rows.add(InfoRow.of("Cipher suite", tls.cipherSuite()));
    rows.add(InfoRow.of("ALPN", tls.alpn()));
    rows.add(InfoRow.of("SNI", tls.sni()));
    if (server) {
      rows.add(InfoRow.of("Certificate verified", tls.verified() ? "yes" : "no"));
    }
    List<X509Certificate> chain = tls.peerCertificates();
    for (int i = 0; i < chain.size(); i++) {
      X509Certificate cert = chain.get(i);
      String prefix = chain.size() == 1 ? "Certificate" : "Certificate " + (i + 1);
      rows.add(InfoRow.of(prefix + " subject", cert.getSubjectX500Principal().getName(X500Principal.RFC2253)));
      rows.add(InfoRow.of(prefix + " issuer", cert.getIssuerX500Principal().getName(X500Principal.RFC2253)));
      rows.add(InfoRow.of(prefix + " valid", DATE_TIME.format(cert.getNotBefore().toInstant()) + " – "
          + DATE_TIME.format(cert.getNotAfter().toInstant())));
      String sans = subjectAltNames(cert);
      if (!sans.isEmpty()) {
        rows.add(InfoRow.of(prefix + " names", sans));
      }
    }
  }

  private static String subjectAltNames(X509Certificate cert) {
    try {
      Collection<List<?>> names = cert.getSubjectAlternativeNames();
      if (names == null) {
        return "";
      }
      List<String> out = new ArrayList<>();
      for (List<?> n : names) {
        if (n.size() >= 2 && n.get(1) instanceof String s) {
          out.add(s);
        }
      }
      return String.join(", ", out);
    } catch (CertificateParsingException e) {
      return "";
    }
  }

  private static String address(InetSocketAddress a) {
    if (a == null) {
      return null;
    }
    String host = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
  }

  /** {@code 12:03:04.123}, as the WebSocket table shows times. */
  public static String time(java.time.Instant t) {
    return TIME.format(t);
  }

  public MessageViewModel request() {
    return request;
  }

  public MessageViewModel response() {
    return response;
  }

  /** The flow shown, or null. */
  public ReadOnlyObjectProperty<Flow> flowProperty() {
    return flow.getReadOnlyProperty();
  }

  /** {@code GET https://example.com/x  →  200}; empty when nothing is shown. */
  public ReadOnlyStringProperty titleProperty() {
    return title.getReadOnlyProperty();
  }

  public ObservableList<InfoRow> connectionRows() {
    return FXCollections.unmodifiableObservableList(connection);
  }

  /** The waterfall's bars, in order. */
  public ObservableList<TimingPhase> timingPhases() {
    return FXCollections.unmodifiableObservableList(timing);
  }

  /** Total time in ms, or -1 while in flight. */
  public ReadOnlyDoubleProperty totalMsProperty() {
    return totalMs.getReadOnlyProperty();
  }

  /** Whether the flow is a WebSocket (the WebSocket tab shows only then). */
  public ReadOnlyBooleanProperty webSocketProperty() {
    return webSocket.getReadOnlyProperty();
  }

  public ObservableList<WebSocketRow> webSocketMessages() {
    return FXCollections.unmodifiableObservableList(messages);
  }

  public ReadOnlyObjectProperty<WebSocketRow> selectedMessageProperty() {
    return selectedMessage.getReadOnlyProperty();
  }

  /**
   * {@code Modified by: rule "X", breakpoint: request edited} when a rule or breakpoint changed the
   * flow; empty otherwise.
   */
  /**
   * Problems met along the way that did not fail the flow (a plugin hook that threw or hung), one
   * per line; empty when none.
   */
  public ReadOnlyStringProperty notesProperty() {
    return notes.getReadOnlyProperty();
  }

  /** Where the body viewers get plugin content views from (the session's registry). */
  public void contentViews(java.util.function.Supplier<List<dev.loupe.spi.ContentView>> views) {
    request.body().contentViews(views);
    response.body().contentViews(views);
    messageBody.contentViews(views);
  }

  public ReadOnlyStringProperty modifiedByProperty() {
    return modifiedBy.getReadOnlyProperty();
  }

  /** {@code Replay of #12} for a replayed or composed-from-a-flow request; empty otherwise. */
  public ReadOnlyStringProperty replayOfProperty() {
    return replayOf.getReadOnlyProperty();
  }

  /** The shown flow as it came vs as Loupe changed it (empty while it is unmodified). */
  public DiffViewModel originalVsModified() {
    return originalVsModified;
  }

  /** The selected WebSocket message's viewer. */
  public BodyViewModel messageBody() {
    return messageBody;
  }

  @Override
  public void close() {
    if (owned != null) {
      owned.shutdownNow();
    }
  }
}
