package dev.loupe.engine.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.testing.TestPki;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A detail blob encoded with {@link EncodedParts} (a connection's TLS facts and addresses taken from
 * earlier flows) is byte for byte the blob encoded without; the certificates of a cached TLS part
 * are given to the sink once; {@link BlobWriter#string}'s ASCII copy writes what UTF-8 encoding does.
 */
class EncodedPartsTest {
  @Test
  void cachedPartsGiveTheSameBytesAndHashEachChainOnce() throws Exception {
    List<X509Certificate> chain = TestPki.shared().originCa().leafFor("api.example.com").chain();
    InetSocketAddress client = new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 40123);
    InetSocketAddress proxy = InetSocketAddress.createUnresolved("proxy", 8080);
    InetSocketAddress origin = new InetSocketAddress(InetAddress.getByAddress("api.example.com",
        new byte[] {10, 1, 2, 3}), 443);
    TlsInfo clientTls = new TlsInfo("api.example.com", "TLSv1.3", "TLS_AES_128_GCM_SHA256", "h2", List.of(), false);
    TlsInfo serverTls = new TlsInfo("api.example.com", "TLSv1.3", "TLS_AES_256_GCM_SHA384", "h2", chain, true);
    List<X509Certificate> put = new ArrayList<>();
    FlowCodec.CertificateSink sink = c -> {
      put.add(c);
      return new byte[] {(byte) put.size()};
    };
    List<X509Certificate> plainPut = new ArrayList<>();
    FlowCodec.CertificateSink plainSink = c -> {
      plainPut.add(c);
      return new byte[] {(byte) (chain.indexOf(c) + 1)};
    };
    EncodedParts parts = new EncodedParts();
    BlobWriter w = new BlobWriter();
    for (int i = 0; i < 5; i++) {
      RecordedFlow f = new RecordedFlow(i + 1, Instant.now(), CapturePolicy.defaults());
      f.clientConnection(new ConnectionInfo(7, client, proxy, clientTls, i > 0));
      f.serverConnection(new ConnectionInfo(8, origin, i % 2 == 0 ? null : client, serverTls, i > 0));
      f.request(new RequestHead("GET", "https", "api.example.com", 443, "/caf\u00e9/" + i, "HTTP/2",
          Headers.of("Accept", "*/*", "X-Name", "Gr\u00fc\u00dfe \ud83d\ude00", "X-Bad", "\ud800 lone")));
      byte[] cached = FlowCodec.encode(f, w, sink, parts);
      byte[] plain = FlowCodec.encode(f, new BlobWriter(), plainSink);
      assertThat(cached).as("flow %d", i).isEqualTo(plain);
    }
    assertThat(put).as("the chain is given to the sink once, not per flow").isEqualTo(chain);
    assertThat(plainPut).hasSize(5 * chain.size());
    parts.clear(); // after a rollback the chain is stored again
    RecordedFlow f = new RecordedFlow(9, Instant.now(), CapturePolicy.defaults());
    f.serverConnection(new ConnectionInfo(8, origin, null, serverTls, true));
    FlowCodec.encode(f, w, sink, parts);
    assertThat(put).hasSize(2 * chain.size());
  }

  @Test
  void stringsReadBackAsUtf8EncodingWroteThem() {
    String[] texts = {"", "plain ascii", "caf\u00e9", "\u00ff", "\u007f\u0080", "emoji \ud83d\ude00", "lone \ud800 surrogate",
        "x".repeat(5000), null};
    for (String s : texts) {
      byte[] blob = new BlobWriter().string(s).string("after").toByteArray();
      BlobReader r = new BlobReader(blob);
      String expected = s == null ? null : new String(s.getBytes(java.nio.charset.StandardCharsets.UTF_8),
          java.nio.charset.StandardCharsets.UTF_8);
      assertThat(r.string()).isEqualTo(expected);
      assertThat(r.string()).isEqualTo("after");
    }
  }
}
