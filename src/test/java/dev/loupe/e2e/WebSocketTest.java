package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.engine.flow.WebSocketMessage.Direction;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The JDK WebSocket client through the proxy to the origin's echo: {@code ws://} (the JDK tunnels
 * it with CONNECT and Loupe parses the cleartext HTTP inside) and {@code wss://} (intercepted TLS).
 * Echoes must be byte-exact and every message must be captured on the flow.
 */
@Timeout(120)
class WebSocketTest {
  static ProxyFixture proxy;
  static TestOrigin http;
  static TestOrigin https;

  @BeforeAll
  static void start() throws Exception {
    proxy = ProxyFixture.start();
    http = TestOrigin.http();
    https = TestOrigin.https();
  }

  @AfterAll
  static void stop() {
    proxy.close();
    http.close();
    https.close();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"ws", "wss"})
  void echoAndCapture(String scheme) throws Exception {
    TestOrigin origin = scheme.equals("ws") ? http : https;
    String tag = "/ws?t=echo-" + scheme;
    URI uri = URI.create(scheme + "://127.0.0.1:" + origin.port() + tag);
    byte[] binary = new byte[70_000];
    new Random(42).nextBytes(binary);

    Recorder rec = new Recorder();
    WebSocket ws = proxy.client().newWebSocketBuilder().buildAsync(uri, rec).get(20, TimeUnit.SECONDS);

    ws.sendText("hello", true).get(20, TimeUnit.SECONDS);
    assertThat(rec.next()).isEqualTo("hello");

    ws.sendBinary(ByteBuffer.wrap(binary), true).get(20, TimeUnit.SECONDS);
    Object echoed = rec.next();
    assertThat(echoed).isInstanceOf(byte[].class);
    assertThat(TestData.sha256((byte[]) echoed)).isEqualTo(TestData.sha256(binary));

    ws.sendClose(1000, "bye").get(20, TimeUnit.SECONDS);
    assertThat(rec.closed.get(20, TimeUnit.SECONDS)).isEqualTo("1000 bye");

    // The flow ends once both legs have closed.
    Flow flow = proxy.awaitFlow(tag);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.error()).isNull();
    assertThat(flow.isWebSocket()).isTrue();
    assertThat(flow.response().status()).isEqualTo(101);
    assertThat(flow.request().headers().get("upgrade")).isEqualToIgnoringCase("websocket");
    assertThat(flow.request().scheme()).isEqualTo(scheme.equals("ws") ? "http" : "https");
    if (scheme.equals("wss")) {
      assertThat(flow.clientConnection().tls()).isNotNull();
      assertThat(flow.serverConnection().tls()).isNotNull();
    }
    assertThat(flow.webSocketCloseCode()).isEqualTo(1000);
    assertThat(flow.webSocketCloseReason()).isEqualTo("bye");

    List<WebSocketMessage> data = flow.webSocketMessages().stream()
        .filter(m -> m.opcode() == WebSocketMessage.TEXT || m.opcode() == WebSocketMessage.BINARY)
        .toList();
    assertThat(data).extracting(WebSocketMessage::direction, WebSocketMessage::opcode).containsExactly(
        tuple(Direction.CLIENT_TO_SERVER, WebSocketMessage.TEXT),
        tuple(Direction.SERVER_TO_CLIENT, WebSocketMessage.TEXT),
        tuple(Direction.CLIENT_TO_SERVER, WebSocketMessage.BINARY),
        tuple(Direction.SERVER_TO_CLIENT, WebSocketMessage.BINARY));
    assertThat(data.get(0).text()).isEqualTo("hello");
    assertThat(data.get(1).text()).isEqualTo("hello");
    for (WebSocketMessage m : data.subList(2, 4)) {
      assertThat(m.length()).isEqualTo(binary.length);
      assertThat(m.truncated()).isFalse();
      assertThat(TestData.sha256(m.payload())).isEqualTo(TestData.sha256(binary));
    }

    List<WebSocketMessage> closes = flow.webSocketMessages().stream()
        .filter(m -> m.opcode() == WebSocketMessage.CLOSE).toList();
    assertThat(closes).extracting(WebSocketMessage::direction)
        .containsExactly(Direction.CLIENT_TO_SERVER, Direction.SERVER_TO_CLIENT);
    byte[] closePayload = closePayload(1000, "bye");
    assertThat(closes).allSatisfy(m -> assertThat(m.payload()).isEqualTo(closePayload));

    // Timestamps follow the order of the exchange.
    List<WebSocketMessage> all = flow.webSocketMessages();
    for (int i = 1; i < all.size(); i++) {
      assertThat(all.get(i).time()).isAfterOrEqualTo(all.get(i - 1).time());
    }
  }

  private static byte[] closePayload(int code, String reason) {
    byte[] r = reason.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[2 + r.length];
    out[0] = (byte) (code >> 8);
    out[1] = (byte) code;
    System.arraycopy(r, 0, out, 2, r.length);
    return out;
  }

  /** Collects whole messages (text as String, binary as byte[]) and the close. */
  static final class Recorder implements WebSocket.Listener {
    final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<String> closed = new CompletableFuture<>();
    private StringBuilder text = new StringBuilder();
    private ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    @Override
    public void onOpen(WebSocket ws) {
      ws.request(1);
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        messages.add(text.toString());
        text = new StringBuilder();
      }
      ws.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
      byte[] b = new byte[data.remaining()];
      data.get(b);
      bytes.writeBytes(b);
      if (last) {
        messages.add(bytes.toByteArray());
        bytes = new ByteArrayOutputStream();
      }
      ws.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
      closed.complete(statusCode + " " + reason);
      return null;
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
      messages.add(error);
      closed.completeExceptionally(error);
    }

    Object next() throws Exception {
      Object m = messages.poll(20, TimeUnit.SECONDS);
      if (m == null) {
        throw new AssertionError("no WebSocket message within 20 s");
      }
      if (m instanceof Throwable t) {
        throw new AssertionError("WebSocket failed", t);
      }
      return m;
    }
  }
}
