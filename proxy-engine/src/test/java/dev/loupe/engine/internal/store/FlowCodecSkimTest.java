package dev.loupe.engine.internal.store;

import dev.loupe.engine.internal.record.RecordedBody;
import dev.loupe.engine.internal.record.RecordingStore;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.testing.TestPki;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link FlowCodec#contentEncodings} reads the same Content-Encoding values as a whole decode, past
 * connections with TLS chains and 1xx responses, for the sent (changed) heads; and its shortcut
 * (no {@code content-encod} in the blob, no decode) cannot miss a header Java would match.
 */
class FlowCodecSkimTest {
  @Test
  void theSkimReadsWhatTheDecodeReads() throws Exception {
    List<X509Certificate> chain = TestPki.shared().originCa().leafFor("api.example.com").chain();
    Map<String, X509Certificate> certs = new HashMap<>();
    FlowCodec.CertificateSink sink = c -> {
      try {
        byte[] sha = java.security.MessageDigest.getInstance("SHA-256").digest(c.getEncoded());
        certs.put(java.util.HexFormat.of().formatHex(sha), c);
        return sha;
      } catch (java.security.GeneralSecurityException e) {
        throw new AssertionError(e);
      }
    };
    String[][] cases = {{null, null}, {"gzip", null}, {null, "br"}, {"deflate", "gzip, br"}};
    for (String[] c : cases) {
      for (boolean changed : new boolean[] {false, true}) {
        RecordedFlow f = new RecordedFlow(1, Instant.now(), CapturePolicy.defaults());
        f.clientConnection(new ConnectionInfo(7, new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}),
            40123), InetSocketAddress.createUnresolved("proxy", 8080),
            new TlsInfo("api.example.com", "TLSv1.3", "TLS_AES_128_GCM_SHA256", "h2", chain, false), true));
        f.serverConnection(new ConnectionInfo(8, InetSocketAddress.createUnresolved("api.example.com", 443), null,
            new TlsInfo("api.example.com", "TLSv1.3", "TLS_AES_256_GCM_SHA384", "h2", chain, true), false));
        f.request(new RequestHead("POST", "https", "api.example.com", 443, "/", "HTTP/2", headers(changed ? "zstd" : c[0])));
        f.response(new ResponseHead(103, "", "HTTP/2", Headers.of("Content-Encoding", "informational")));
        f.response(new ResponseHead(200, "", "HTTP/2", headers(changed ? "compress" : c[1])));
        if (changed) {
          f.requestModified(new RequestHead("POST", "https", "api.example.com", 443, "/", "HTTP/2", headers(c[0])),
              new RecordedBody(CapturePolicy.defaults()));
          f.responseModified(new ResponseHead(200, "", "HTTP/2", headers(c[1])),
              new RecordedBody(CapturePolicy.defaults()));
        }
        byte[] blob = FlowCodec.encode(f, new BlobWriter(), sink);
        FlowBuilder b = new FlowBuilder();
        FlowCodec.decode(blob, b, sha -> certs.get(java.util.HexFormat.of().formatHex(sha)));
        assertThat(FlowCodec.contentEncodings(blob)).as(c[0] + ", " + c[1] + (changed ? ", changed" : ""))
            .containsExactly(b.request.headers().get("content-encoding"), b.response.headers().get("content-encoding"))
            .containsExactly(c[0], c[1]);
      }
    }
  }

  private static Headers headers(String contentEncoding) {
    Headers h = Headers.of("Accept", "*/*", "X-Content-Encoding-Note", "not this one");
    return contentEncoding == null ? h : h.plus("cOnTeNt-EnCoDiNg", contentEncoding);
  }

  @Test
  void noOtherCharacterIsTakenForALetterOfContentEncod() {
    // Headers.get compares names with equalsIgnoreCase, which folds some non-ASCII letters to ASCII
    // ones (the Kelvin sign to k, the dotless i to i): none of them stands for a letter of the prefix
    String prefix = "content-encod";
    for (char c = 128; c < Character.MAX_VALUE; c++) {
      for (int i = 0; i < prefix.length(); i++) {
        assertThat(String.valueOf(c).equalsIgnoreCase(prefix.substring(i, i + 1)))
            .as("U+%04X for '%c'", (int) c, prefix.charAt(i)).isFalse();
      }
    }
    assertThat("content-encod\u0131ng".equalsIgnoreCase("content-encoding")).as("the i is folded, after the prefix").isTrue();
    FlowCodec.AsciiNeedle needle = new FlowCodec.AsciiNeedle("content-encod");
    for (String hay : new String[] {"X: CONTENT-ENCOD\u0131NG", "content-encod", "xxcOnTeNt-EnCoD", "Content-EncodX"}) {
      assertThat(needle.in(hay.getBytes(java.nio.charset.StandardCharsets.UTF_8))).as(hay).isTrue();
    }
    for (String hay : new String[] {"", "content-enco", "ontent-encod", "content_encod", "Accept-Encoding: gzip",
        "contentt-encod", "content-encoD".replace('D', '\u0110')}) {
      assertThat(needle.in(hay.getBytes(java.nio.charset.StandardCharsets.UTF_8))).as(hay).isFalse();
    }
  }
}
