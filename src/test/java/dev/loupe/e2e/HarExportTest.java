package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.har.HarWriter;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real session through the proxy — a GET with a query and cookies, a JSON POST, a binary upload
 * and download, a failed DNS lookup and a WebSocket conversation — exported with
 * {@link HarWriter#writeAtomically} and checked against the HAR 1.2 schema and the rules the
 * schema leaves out.
 */
@Timeout(120)
class HarExportTest {
  static final String JSON = "{\"name\":\"loupe\",\"n\":[1,2,3],\"é\":\"ü\"}";
  static final byte[] UPLOAD = TestData.bytes(3000);
  static final byte[] WS_BINARY = new byte[256];

  @TempDir static Path dir;
  static ProxyFixture proxy;
  static TestOrigin http;
  static TestOrigin https;
  static String getUrl;
  static String postJsonUrl;
  static String uploadUrl;
  static String downloadUrl;
  static String dnsUrl;
  static String wsUrl;
  static List<Flow> flows;
  static JsonNode har;

  @BeforeAll
  static void runSessionAndExport() throws Exception {
    proxy = ProxyFixture.start();
    http = TestOrigin.http();
    https = TestOrigin.https();
    for (int i = 0; i < WS_BINARY.length; i++) {
      WS_BINARY[i] = (byte) i;
    }
    var client = proxy.client();

    getUrl = https.url() + "/headers?q=loupe&words=two%20words&empty=";
    var get = client.send(HttpRequest.newBuilder(URI.create(getUrl))
        .header("Cookie", "session=abc123; theme=dark").build(), HttpResponse.BodyHandlers.ofString());
    assertThat(get.statusCode()).isEqualTo(200);

    postJsonUrl = http.url() + "/echo?kind=json";
    var post = client.send(HttpRequest.newBuilder(URI.create(postJsonUrl))
        .header("Content-Type", "application/json; charset=utf-8")
        .POST(HttpRequest.BodyPublishers.ofString(JSON, StandardCharsets.UTF_8)).build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    assertThat(post.body()).isEqualTo(JSON);

    uploadUrl = https.url() + "/sha256?kind=binary-upload";
    var upload = client.send(HttpRequest.newBuilder(URI.create(uploadUrl))
        .header("Content-Type", "application/octet-stream")
        .POST(HttpRequest.BodyPublishers.ofByteArray(UPLOAD)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(upload.body()).isEqualTo(TestData.sha256(UPLOAD) + " " + UPLOAD.length);

    downloadUrl = https.url() + "/bytes/5000?kind=binary-download";
    var download = client.send(HttpRequest.newBuilder(URI.create(downloadUrl)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(download.body()).isEqualTo(TestData.bytes(5000));

    dnsUrl = "http://nosuch.invalid/har?kind=dns";
    var failed = client.send(HttpRequest.newBuilder(URI.create(dnsUrl)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(failed.statusCode()).isEqualTo(502);

    wsUrl = http.url("127.0.0.1") + "/ws";
    webSocketConversation(URI.create(wsUrl.replace("http://", "ws://")));

    flows = proxy.awaitFlows(6, f -> true);
    assertThat(proxy.awaitFlow("/ws").isWebSocket()).isTrue();
    Path file = dir.resolve("session.har");
    HarWriter.writeAtomically(proxy.store().snapshot(), file);
    har = HarFiles.read(file);
    try (var listing = Files.list(dir)) {
      assertThat(listing.map(p -> p.getFileName().toString())).as("no temp file left behind")
          .containsExactly("session.har");
    }
  }

  /** Text and binary echoed by the origin, then a clean close; waits on each step. */
  private static void webSocketConversation(URI uri) throws Exception {
    LinkedBlockingQueue<Object> received = new LinkedBlockingQueue<>();
    CompletableFuture<Integer> closed = new CompletableFuture<>();
    WebSocket.Listener listener = new WebSocket.Listener() {
      private final StringBuilder text = new StringBuilder();
      private final java.io.ByteArrayOutputStream binary = new java.io.ByteArrayOutputStream();

      @Override
      public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
        text.append(data);
        if (last) {
          received.add(text.toString());
          text.setLength(0);
        }
        ws.request(1);
        return null;
      }

      @Override
      public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
        byte[] b = new byte[data.remaining()];
        data.get(b);
        binary.writeBytes(b);
        if (last) {
          received.add(binary.toByteArray());
          binary.reset();
        }
        ws.request(1);
        return null;
      }

      @Override
      public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
        closed.complete(statusCode);
        return null;
      }

      @Override
      public void onError(WebSocket ws, Throwable error) {
        closed.completeExceptionally(error);
      }
    };
    WebSocket ws = proxy.client().newWebSocketBuilder().buildAsync(uri, listener).get(15, TimeUnit.SECONDS);
    ws.sendText("hello loupe", true).get(15, TimeUnit.SECONDS);
    assertThat(received.poll(15, TimeUnit.SECONDS)).isEqualTo("hello loupe");
    ws.sendBinary(ByteBuffer.wrap(WS_BINARY), true).get(15, TimeUnit.SECONDS);
    assertThat(received.poll(15, TimeUnit.SECONDS)).isEqualTo(WS_BINARY);
    ws.sendClose(1000, "done").get(15, TimeUnit.SECONDS);
    assertThat(closed.get(15, TimeUnit.SECONDS)).isEqualTo(1000);
  }

  @AfterAll
  static void stop() {
    proxy.close();
    http.close();
    https.close();
  }

  @Test
  void validAgainstTheSchemaWithAbsoluteUrlsAndConsistentTimes() {
    HarFiles.assertValid(har);
    assertThat(har.path("log").path("creator").path("name").asText()).isEqualTo("Loupe");
  }

  @Test
  void oneEntryPerFlowInArrivalOrder() {
    List<Flow> all = proxy.store().snapshot();
    assertThat(all).hasSize(6);
    assertThat(entries()).hasSize(all.size());
    assertThat(entries().stream().map(e -> e.path("request").path("url").asText()).toList())
        .containsExactly(getUrl, postJsonUrl, uploadUrl, downloadUrl, dnsUrl, wsUrl);
  }

  @Test
  void queryStringAndCookies() {
    JsonNode req = entry(getUrl).path("request");
    assertThat(req.path("method").asText()).isEqualTo("GET");
    assertThat(nameValues(req.path("queryString")))
        .containsExactly("q=loupe", "words=two words", "empty=");
    assertThat(nameValues(req.path("cookies"))).containsExactly("session=abc123", "theme=dark");
    assertThat(nameValues(req.path("headers"))).contains("Cookie=session=abc123; theme=dark");
    JsonNode res = entry(getUrl).path("response");
    assertThat(res.path("status").asInt()).isEqualTo(200);
    assertThat(res.path("content").path("text").asText()).contains("cookie: session=abc123; theme=dark");
    assertThat(entry(getUrl).path("serverIPAddress").asText()).isEqualTo("127.0.0.1");
  }

  @Test
  void jsonPostAsText() {
    JsonNode e = entry(postJsonUrl);
    JsonNode postData = e.path("request").path("postData");
    assertThat(postData.path("mimeType").asText()).startsWith("application/json");
    assertThat(postData.path("text").asText()).isEqualTo(JSON);
    assertThat(postData.has("encoding")).isFalse();
    assertThat(e.path("request").path("bodySize").asLong())
        .isEqualTo(JSON.getBytes(StandardCharsets.UTF_8).length);
    assertThat(bodyOf(e.path("response").path("content"))).isEqualTo(JSON.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void binaryBodiesAsBase64() {
    JsonNode up = entry(uploadUrl).path("request").path("postData");
    assertThat(up.path("encoding").asText()).isEqualTo("base64");
    assertThat(Base64.getDecoder().decode(up.path("text").asText())).isEqualTo(UPLOAD);

    JsonNode content = entry(downloadUrl).path("response").path("content");
    assertThat(content.path("encoding").asText()).isEqualTo("base64");
    assertThat(content.path("size").asLong()).isEqualTo(5000);
    assertThat(bodyOf(content)).isEqualTo(TestData.bytes(5000));
    assertThat(entry(downloadUrl).path("response").path("bodySize").asLong()).isEqualTo(5000);
  }

  @Test
  void failedFlowHasStubResponseAndError() {
    JsonNode e = entry(dnsUrl);
    assertThat(e.path("response").path("status").asInt()).isEqualTo(0);
    assertThat(e.path("_errorKind").asText()).isEqualTo("DNS");
    assertThat(e.path("_error").asText()).contains("DNS lookup failed for nosuch.invalid");
    assertThat(e.has("serverIPAddress")).isFalse();
    Flow f = proxy.awaitFlow(dnsUrl);
    assertThat(f.state()).isEqualTo(FlowState.FAILED);
  }

  @Test
  void webSocketMessagesAsBrowsersWriteThem() {
    JsonNode e = entry(wsUrl);
    assertThat(e.path("_resourceType").asText()).isEqualTo("websocket");
    List<String> messages = new ArrayList<>();
    for (JsonNode m : e.path("_webSocketMessages")) {
      assertThat(m.path("time").isNumber()).isTrue();
      int opcode = m.path("opcode").asInt();
      String data = opcode == 1 ? m.path("data").asText()
          : opcode == 2 ? "base64:" + m.path("data").asText() : "opcode " + opcode;
      messages.add(m.path("type").asText() + " " + data);
    }
    String binary = "base64:" + Base64.getEncoder().encodeToString(WS_BINARY);
    assertThat(messages).containsSubsequence("send hello loupe", "receive hello loupe", "send " + binary,
        "receive " + binary);

    // The handshake's answer is the entry's response, as browsers write it: 101 with its headers.
    Flow flow = proxy.awaitFlow("/ws");
    assertThat(flow.response()).as("final response of the WebSocket flow").isNotNull();
    assertThat(flow.response().status()).isEqualTo(101);
    assertThat(e.path("response").path("status").asInt()).isEqualTo(101);
    assertThat(nameValues(e.path("response").path("headers"))).anyMatch(h -> h.regionMatches(true, 0, "upgrade=", 0, 8));
  }

  // ---- helpers -----------------------------------------------------------------------------

  private static List<JsonNode> entries() {
    return StreamSupport.stream(har.path("log").path("entries").spliterator(), false).toList();
  }

  private static JsonNode entry(String url) {
    List<JsonNode> matching = entries().stream().filter(e -> e.path("request").path("url").asText().equals(url)).toList();
    assertThat(matching).as("entries for %s", url).hasSize(1);
    return matching.get(0);
  }

  private static List<String> nameValues(JsonNode array) {
    List<String> out = new ArrayList<>();
    for (JsonNode nv : array) {
      out.add(nv.path("name").asText() + "=" + nv.path("value").asText());
    }
    return out;
  }

  private static byte[] bodyOf(JsonNode content) {
    String text = content.path("text").asText();
    return "base64".equals(content.path("encoding").asText()) ? Base64.getDecoder().decode(text)
        : text.getBytes(StandardCharsets.UTF_8);
  }
}
