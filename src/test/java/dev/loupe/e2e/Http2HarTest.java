package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loupe.engine.flow.har.HarWriter;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session with HTTP/2 client streams (bridged to an HTTP/1.1 origin) next to an HTTP/1.1
 * exchange, exported with {@link HarWriter#writeAtomically}: HAR entries describe what the client
 * saw, so an HTTP/2 stream's request and response carry {@code httpVersion "HTTP/2"} (and
 * {@code headersSize -1}: HPACK blocks are not measured), while {@code _serverHttpVersion} tells
 * the server leg's version.
 */
@Timeout(120)
class Http2HarTest {
  @TempDir static Path dir;
  static ProxyFixture proxy;
  static TestOrigin origin;
  static JsonNode har;

  @BeforeAll
  static void runSessionAndExport() throws Exception {
    proxy = ProxyFixture.start();
    origin = TestOrigin.h1Only();
    HttpClient h2 = proxy.clientBuilder().version(HttpClient.Version.HTTP_2).build();

    HttpResponse<String> get = h2.send(HttpRequest.newBuilder(URI.create(origin.url() + "/headers?t=har-h2-get"))
        .header("Cookie", "session=abc").build(), HttpResponse.BodyHandlers.ofString());
    assertThat(get.version()).isEqualTo(HttpClient.Version.HTTP_2);

    HttpResponse<String> post = h2.send(HttpRequest.newBuilder(URI.create(origin.url() + "/echo?t=har-h2-post"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"h2\":true}", StandardCharsets.UTF_8)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(post.body()).isEqualTo("{\"h2\":true}");

    try (Http2TestClient frames = Http2TestClient.viaProxy(proxy, origin)) {
      Http2TestClient.Stream s = frames.open();
      s.headers(frames.request("POST", "/trailers-echo?t=har-h2-trailers").set("te", "trailers"), false);
      s.body(3000, true);
      s.trailers(new DefaultHttp2Headers().set("x-sum", TestData.sha256(3000)));
      s.await(30);
    }

    HttpResponse<String> h1 = proxy.client().send(HttpRequest.newBuilder(
        URI.create(origin.url() + "/status/200?t=har-h1")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(h1.version()).isEqualTo(HttpClient.Version.HTTP_1_1);

    proxy.awaitFlows(4, f -> f.request() != null && f.request().url().contains("t=har-"));
    Path file = dir.resolve("h2.har");
    HarWriter.writeAtomically(proxy.store().snapshot(), file);
    har = HarFiles.read(file);
  }

  @AfterAll
  static void stop() {
    proxy.close();
    origin.close();
  }

  private static List<JsonNode> entries(String tagPrefix) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode e : har.path("log").path("entries")) {
      if (e.path("request").path("url").asText().contains("t=" + tagPrefix)) {
        out.add(e);
      }
    }
    return out;
  }

  @Test
  void schemaValid() {
    HarFiles.assertValid(har);
    assertThat(entries("har-h2-")).hasSize(3);
    assertThat(entries("har-h1")).hasSize(1);
  }

  @Test
  void h2RequestsCarryTheClientsVersion() {
    assertThat(entries("har-h2-")).allSatisfy(e -> {
      assertThat(e.path("request").path("httpVersion").asText()).isEqualTo("HTTP/2");
      assertThat(e.path("request").path("headersSize").asLong()).isEqualTo(-1);
      assertThat(e.path("_clientHttpVersion").asText()).isEqualTo("HTTP/2");
      assertThat(e.path("_serverHttpVersion").asText()).isEqualTo("HTTP/1.1");
    });
  }

  @Test
  void h2ResponsesCarryTheClientsVersion() {
    // The entry is the client's view: the client received its response on an HTTP/2 stream, even
    // though the origin answered Loupe in HTTP/1.1 (that is _serverHttpVersion).
    assertThat(entries("har-h2-")).allSatisfy(e -> {
      assertThat(e.path("response").path("httpVersion").asText())
          .as("response.httpVersion of %s", e.path("request").path("url").asText()).isEqualTo("HTTP/2");
      assertThat(e.path("response").path("headersSize").asLong()).isEqualTo(-1);
    });
  }

  @Test
  void h2BodiesAndTrailersAreExported() {
    JsonNode post = entries("har-h2-post").get(0);
    assertThat(post.path("request").path("postData").path("text").asText()).isEqualTo("{\"h2\":true}");
    JsonNode content = post.path("response").path("content");
    assertThat(content.path("encoding").asText()).as("the echo answers application/octet-stream").isEqualTo("base64");
    assertThat(new String(java.util.Base64.getDecoder().decode(content.path("text").asText()), StandardCharsets.UTF_8))
        .isEqualTo("{\"h2\":true}");
    JsonNode trailers = entries("har-h2-trailers").get(0);
    assertThat(trailers.path("request").path("_trailers").toString()).contains("x-sum", TestData.sha256(3000));
    assertThat(trailers.path("response").path("_trailers").toString()).contains("x-sum");
    JsonNode get = entries("har-h2-get").get(0);
    assertThat(get.path("request").path("cookies").get(0).path("name").asText()).isEqualTo("session");
  }

  @Test
  void http11ClientToH2OriginResponseCarriesTheClientsVersion() throws Exception {
    // The other direction: an HTTP/1.1 client, the server leg forced to HTTP/2.
    try (ProxyFixture forced = ProxyFixture.start(b -> b.upstreamProtocol(
            dev.loupe.engine.api.EngineConfig.UpstreamProtocol.H2));
        TestOrigin h2Origin = TestOrigin.h2Only()) {
      HttpResponse<String> r = forced.client().send(HttpRequest.newBuilder(
          URI.create(h2Origin.url() + "/status/200?t=har-h1-to-h2")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
      forced.awaitFlow("t=har-h1-to-h2");
      Path file = dir.resolve("h1-to-h2.har");
      HarWriter.writeAtomically(forced.store().snapshot(), file);
      JsonNode e = HarFiles.read(file).path("log").path("entries").get(0);
      assertThat(e.path("_clientHttpVersion").asText()).isEqualTo("HTTP/1.1");
      assertThat(e.path("_serverHttpVersion").asText()).isEqualTo("HTTP/2");
      assertThat(e.path("request").path("httpVersion").asText()).isEqualTo("HTTP/1.1");
      assertThat(e.path("response").path("httpVersion").asText()).as("response.httpVersion").isEqualTo("HTTP/1.1");
      assertThat(e.path("response").path("headersSize").asLong()).as("an HTTP/1.1 head has a size").isPositive();
    }
  }

  @Test
  void http11EntryIsUnchanged() {
    JsonNode e = entries("har-h1").get(0);
    assertThat(e.path("request").path("httpVersion").asText()).isEqualTo("HTTP/1.1");
    assertThat(e.path("response").path("httpVersion").asText()).isEqualTo("HTTP/1.1");
    assertThat(e.path("request").path("headersSize").asLong()).isPositive();
    assertThat(e.path("_clientHttpVersion").asText()).isEqualTo("HTTP/1.1");
  }
}
