package dev.loupe.engine.flow.har;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The edges of the export: odd bodies, odd heads, odd addresses. Every HAR here is also schema-checked. */
@Timeout(60)
class HarWriterTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Instant T = Instant.parse("2026-11-30T02:10:18.123Z");

  @TempDir Path spillDir;

  // ---- documents -------------------------------------------------------------------------------

  @Test
  void noFlowsIsAValidEmptyLog() throws IOException {
    JsonNode har = har(List.of());
    assertThat(har.get("log").get("entries")).isEmpty();
    assertThat(HarSchema.violations(har)).isEmpty();
  }

  @Test
  void writeFlushesButDoesNotCloseTheStream() throws IOException {
    boolean[] closed = {false};
    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    HarWriter.write(List.of(), new FilterOutputStream(sink) {
      @Override
      public void close() {
        closed[0] = true;
      }
    });
    assertThat(closed[0]).isFalse();
    assertThat(MAPPER.readTree(sink.toByteArray()).get("log").get("version").asText()).isEqualTo("1.2");
  }

  @Test
  void creatorVersionFallsBackToDev() {
    // Tests run from target/classes, which has no manifest.
    assertThat(HarWriter.creatorVersion()).isEqualTo("dev");
  }

  // ---- bodies ----------------------------------------------------------------------------------

  @Test
  void textTypeWithInvalidUtf8IsBase64() throws IOException {
    byte[] bytes = {'o', 'k', (byte) 0xC3, (byte) 0x28, 'x'};
    JsonNode content = content(response("text/plain", null, bytes));
    assertThat(content.get("encoding").asText()).isEqualTo("base64");
    assertThat(Base64.getDecoder().decode(content.get("text").asText())).isEqualTo(bytes);
  }

  @Test
  void declaredCharsetIsUsedForText() throws IOException {
    byte[] latin1 = "na\u00efve caf\u00e9".getBytes(StandardCharsets.ISO_8859_1);
    JsonNode content = content(response("text/plain; charset=\"ISO-8859-1\"", null, latin1));
    assertThat(content.get("text").asText()).isEqualTo("na\u00efve caf\u00e9");
    assertThat(content.has("encoding")).isFalse();
  }

  @Test
  void unknownBinaryTypeIsBase64EvenIfItLooksLikeText() throws IOException {
    JsonNode content = content(response("application/octet-stream", null, "plain".getBytes(StandardCharsets.US_ASCII)));
    assertThat(content.get("encoding").asText()).isEqualTo("base64");
  }

  @Test
  void missingContentTypeIsOctetStream() throws IOException {
    RecordedFlow f = response(null, null, new byte[] {1, 2, 3});
    JsonNode content = content(f);
    assertThat(content.get("mimeType").asText()).isEqualTo("application/octet-stream");
    assertThat(content.get("encoding").asText()).isEqualTo("base64");
  }

  @Test
  void emptyBodyHasNoText() throws IOException {
    JsonNode content = content(response("text/plain", null, new byte[0]));
    assertThat(content.get("size").asLong()).isZero();
    assertThat(content.has("text")).isFalse();
  }

  @Test
  void truncatedCaptureEndingInsideACharacterIsStillText() throws IOException {
    // "é" is two bytes; a 6-byte cap cuts it after its first byte.
    RecordedFlow f = flow(new CapturePolicy(6, false, spillDir));
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Content-Type", "text/plain; charset=utf-8")));
    HarFixtures.append(f.responseBody(), "abcde\u00e9fgh".getBytes(StandardCharsets.UTF_8), 3);
    f.complete();
    JsonNode content = content(f);
    assertThat(content.has("encoding")).isFalse();
    assertThat(content.get("text").asText()).startsWith("abcde");
    assertThat(content.get("_truncated").asBoolean()).isTrue();
  }

  @Test
  void rawDeflateAndXGzipAreDecodedToo() throws IOException {
    byte[] text = "raw deflate, as some servers send it".repeat(20).getBytes(StandardCharsets.US_ASCII);
    ByteArrayOutputStream raw = new ByteArrayOutputStream();
    try (DeflaterOutputStream z = new DeflaterOutputStream(raw, new Deflater(Deflater.DEFAULT_COMPRESSION, true))) {
      z.write(text);
    }
    assertThat(content(response("text/plain", "deflate", raw.toByteArray())).get("text").asText())
        .isEqualTo(new String(text, StandardCharsets.US_ASCII));
    assertThat(content(response("text/plain", "x-gzip", HarFixtures.gzip(text))).get("text").asText())
        .isEqualTo(new String(text, StandardCharsets.US_ASCII));
  }

  @Test
  void stackedCodingsAreUndoneInReverseOrder() throws IOException {
    byte[] text = "twice compressed".repeat(10).getBytes(StandardCharsets.US_ASCII);
    byte[] twice = HarFixtures.gzip(HarFixtures.deflate(text)); // deflate applied first, then gzip
    JsonNode content = content(response("text/plain", "deflate, gzip", twice));
    assertThat(content.get("text").asText()).isEqualTo(new String(text, StandardCharsets.US_ASCII));
    assertThat(content.get("size").asLong()).isEqualTo(text.length);
  }

  @Test
  void aCodingLoupeCannotUndoKeepsTheWholeChainRaw() throws IOException {
    byte[] bytes = HarFixtures.gzip("x".getBytes(StandardCharsets.US_ASCII));
    JsonNode content = content(response("text/plain", "gzip, br", bytes));
    assertThat(content.get("_contentEncoding").asText()).isEqualTo("gzip, br");
    assertThat(Base64.getDecoder().decode(content.get("text").asText())).isEqualTo(bytes);
  }

  @Test
  void truncatedGzipFallsBackToRawBytes() throws IOException {
    byte[] gz = HarFixtures.gzip("some text that will not all arrive".repeat(50).getBytes(StandardCharsets.US_ASCII));
    byte[] cut = Arrays.copyOf(gz, gz.length / 2);
    JsonNode content = content(response("text/plain", "gzip", cut));
    assertThat(content.get("encoding").asText()).isEqualTo("base64");
    assertThat(Base64.getDecoder().decode(content.get("text").asText())).isEqualTo(cut);
    assertThat(content.get("size").asLong()).isEqualTo(cut.length);
  }

  @Test
  void decompressionBombIsWrittenRaw() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      byte[] zeros = new byte[1 << 20];
      for (long left = HarBody.MAX_DECODED_SIZE + 1; left > 0; left -= zeros.length) {
        gz.write(zeros, 0, (int) Math.min(zeros.length, left));
      }
    }
    byte[] bomb = out.toByteArray();
    JsonNode content = content(response("text/plain", "gzip", bomb));
    assertThat(content.get("size").asLong()).isEqualTo(bomb.length);
    assertThat(content.get("_contentEncoding").asText()).isEqualTo("gzip");
  }

  @Test
  void requestBodyWithoutContentTypeIsBase64OctetStream() throws IOException {
    RecordedFlow f = flow(CapturePolicy.defaults());
    f.request(new RequestHead("PUT", "https", "a.example", 443, "/x", "HTTP/1.1", Headers.of("Host", "a.example")));
    HarFixtures.append(f.requestBody(), new byte[] {9, 8, 7}, 3);
    f.complete();
    JsonNode postData = entry(f).get("request").get("postData");
    assertThat(postData.get("mimeType").asText()).isEqualTo("application/octet-stream");
    assertThat(postData.get("encoding").asText()).isEqualTo("base64");
    assertThat(entry(f).get("request").get("bodySize").asLong()).isEqualTo(3);
  }

  @Test
  void requestWithoutBodyHasNoPostData() throws IOException {
    JsonNode request = entry(response("text/plain", null, new byte[] {'a'})).get("request");
    assertThat(request.has("postData")).isFalse();
    assertThat(request.get("bodySize").asLong()).isZero();
  }

  // ---- heads, timings, oddities ----------------------------------------------------------------

  @Test
  void flowWithoutRequestHeadStillValidates() throws IOException {
    RecordedFlow f = flow(CapturePolicy.defaults());
    f.fail(new FlowError(FlowError.Kind.CLIENT_PROTOCOL, "unparseable request line from 127.0.0.1"));
    JsonNode e = entry(f);
    assertThat(e.get("request").get("url").asText()).isEqualTo("about:blank");
    assertThat(e.get("_errorKind").asText()).isEqualTo("CLIENT_PROTOCOL");
  }

  @Test
  void inFlightFlowHasZeroForUnknownSendWaitReceive() throws IOException {
    RecordedFlow f = flow(CapturePolicy.defaults());
    f.request(HarFixtures.get("slow.example", "/"));
    f.timings().requestStart(1_000_000);
    JsonNode e = entry(f);
    JsonNode t = e.get("timings");
    assertThat(t.get("send").asDouble()).isZero();
    assertThat(t.get("wait").asDouble()).isZero();
    assertThat(t.get("receive").asDouble()).isZero();
    assertThat(t.get("blocked").asDouble()).isEqualTo(-1);
    assertThat(e.get("time").asDouble()).isZero();
    assertThat(e.get("response").get("status").asInt()).isZero();
  }

  @Test
  void sslWithoutTcpStartMakesConnectAtLeastSsl() throws IOException {
    RecordedFlow f = response("text/plain", null, new byte[] {'a'});
    f.timings().tlsStart(10_000_000);
    f.timings().tlsEnd(13_000_000);
    JsonNode t = entry(f).get("timings");
    assertThat(t.get("ssl").asDouble()).isEqualTo(3);
    assertThat(t.get("connect").asDouble()).isEqualTo(3);
  }

  @Test
  void tunnelWithoutRequestHeadUsesTheServerAddress() throws IOException {
    RecordedFlow f = flow(CapturePolicy.defaults());
    f.tier(FlowTier.TUNNEL);
    f.serverConnection(new ConnectionInfo(3, HarFixtures.addr("::1", 8443), HarFixtures.addr("::1", 50000), null, false));
    f.complete();
    JsonNode e = entry(f);
    assertThat(e.get("request").get("url").asText()).isEqualTo("https://[::1]:8443");
    assertThat(e.get("serverIPAddress").asText()).isEqualTo("::1");
  }

  @Test
  void interceptedConnectThatFailedHasAnAbsoluteUrl() throws IOException {
    RecordedFlow f = flow(CapturePolicy.defaults());
    f.tier(FlowTier.FULL);
    f.request(new RequestHead("CONNECT", "https", "a.example", 443, "a.example:443", "HTTP/1.1",
        Headers.of("Host", "a.example:443")));
    f.fail(new FlowError(FlowError.Kind.CLIENT_TLS, "the client does not trust the Loupe CA (a.example)"));
    JsonNode request = entry(f).get("request");
    assertThat(request.get("url").asText()).isEqualTo("https://a.example:443");
    assertThat(request.get("queryString")).isEmpty();
  }

  @Test
  void asteriskFormTargetNamesTheServer() throws IOException {
    RecordedFlow f = flow(CapturePolicy.defaults());
    f.request(new RequestHead("OPTIONS", "http", "a.example", 8080, "*", "HTTP/1.1", Headers.of("Host", "a.example")));
    f.complete();
    assertThat(entry(f).get("request").get("url").asText()).isEqualTo("http://a.example:8080/");
  }

  @Test
  void trailersAreKept() throws IOException {
    RecordedFlow f = response("application/grpc", null, new byte[] {0, 0, 0, 0, 0});
    f.responseTrailers(Headers.of("grpc-status", "0"));
    JsonNode trailers = entry(f).get("response").get("_trailers");
    assertThat(trailers.get(0).get("name").asText()).isEqualTo("grpc-status");
  }

  // ---- helpers: URLs, addresses, cookies -------------------------------------------------------

  @Test
  void validUrlsAreLeftAlone() {
    for (String url : List.of("https://a.example/p?q=%20x&y=1#frag", "http://[::1]:8080/", "https://a.example/~u/;p=1")) {
      assertThat(HarUrls.escape(url)).isEqualTo(url);
    }
    assertThat(HarUrls.escape("http://a.example/[x]#a#b")).isEqualTo("http://a.example/%5Bx%5D#a%23b");
  }

  @Test
  void ipv6IsWrittenInCanonicalForm() throws IOException {
    assertThat(HarUrls.ipLiteral(InetAddress.getByName("0:0:0:0:0:0:0:1"))).isEqualTo("::1");
    assertThat(HarUrls.ipLiteral(InetAddress.getByName("2001:db8:0:0:1:0:0:1"))).isEqualTo("2001:db8::1:0:0:1");
    assertThat(HarUrls.ipLiteral(InetAddress.getByName("2001:db8:0:1:1:1:1:1"))).isEqualTo("2001:db8:0:1:1:1:1:1");
    assertThat(HarUrls.ipLiteral(InetAddress.getByName("fe80::1%1"))).isEqualTo("fe80::1");
    assertThat(HarUrls.ipLiteral(InetAddress.getByName("::"))).isEqualTo("::");
    assertThat(HarUrls.ipLiteral(InetAddress.getByName("10.1.2.3"))).isEqualTo("10.1.2.3");
  }

  @Test
  void cookieDatesInTheFormsServersSend() {
    Instant expected = Instant.parse("2026-10-21T07:28:00Z");
    assertThat(HarCookies.parseDate("Wed, 21 Oct 2026 07:28:00 GMT")).isEqualTo(expected);
    assertThat(HarCookies.parseDate("Monday, 21 Oct 2026 07:28:00 GMT")).as("wrong day name").isEqualTo(expected);
    assertThat(HarCookies.parseDate("Wed, 21-Oct-2026 07:28:00 GMT")).isEqualTo(expected);
    assertThat(HarCookies.parseDate("Wednesday, 21-Oct-26 07:28:00 GMT")).isEqualTo(expected);
    assertThat(HarCookies.parseDate("Wed Oct 21 07:28:00 2026")).isEqualTo(expected);
    assertThat(HarCookies.parseDate("Wed Oct  1 07:28:00 2026")).isEqualTo(Instant.parse("2026-10-01T07:28:00Z"));
    assertThat(HarCookies.parseDate("soon")).isNull();
  }

  @Test
  void setCookieAttributes() {
    HarCookies.Cookie c = HarCookies.parseSetCookie("id=a=b; max-age=0; expires=Wed, 21 Oct 2026 07:28:00 GMT; secure", T);
    assertThat(c.name()).isEqualTo("id");
    assertThat(c.value()).isEqualTo("a=b");
    assertThat(c.expires()).as("Max-Age wins").isEqualTo(Instant.EPOCH);
    assertThat(c.secure()).isTrue();
    assertThat(c.httpOnly()).isFalse();
    assertThat(HarCookies.parseSetCookie("lonely", T).name()).isEmpty();
    assertThat(HarCookies.parseSetCookie("  ", T)).isNull();
  }

  // ---- plumbing --------------------------------------------------------------------------------

  private RecordedFlow flow(CapturePolicy capture) {
    return new RecordedFlow(1, T, capture);
  }

  private RecordedFlow response(String contentType, String contentEncoding, byte[] body) {
    RecordedFlow f = flow(CapturePolicy.defaults());
    f.request(HarFixtures.get("a.example", "/r"));
    Headers headers = Headers.EMPTY;
    if (contentType != null && contentEncoding != null) {
      headers = Headers.of("Content-Type", contentType, "Content-Encoding", contentEncoding);
    } else if (contentType != null) {
      headers = Headers.of("Content-Type", contentType);
    } else if (contentEncoding != null) {
      headers = Headers.of("Content-Encoding", contentEncoding);
    }
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", headers));
    HarFixtures.append(f.responseBody(), body, 4096);
    f.complete();
    return f;
  }

  private static JsonNode har(List<Flow> flows) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    HarWriter.write(flows, out);
    return MAPPER.readTree(out.toByteArray());
  }

  private static JsonNode entry(RecordedFlow f) throws IOException {
    JsonNode har = har(List.of(f));
    assertThat(HarSchema.violations(har)).isEmpty();
    return har.get("log").get("entries").get(0);
  }

  private static JsonNode content(RecordedFlow f) throws IOException {
    return entry(f).get("response").get("content");
  }
}
