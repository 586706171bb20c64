package dev.loupe.engine.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.CertificateSource;
import dev.loupe.engine.api.EngineConfig;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.RecordingLeakDetector;
import dev.loupe.testing.TestPki;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine closes while a client's leaf certificate is still being minted: the ClientHello that
 * connection holds must be released. (Before MitmContexts.close the lookup completed after the event
 * loops had ended, the SNI handler's listener never ran, and paranoid leak detection reported the
 * ClientHello.)
 */
@Timeout(60)
class CloseDuringMintTest {
  @Test
  void closingTheEngineWhileALeafIsMintedLeaksNoClientHello() throws Exception {
    CountDownLatch minting = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CertificateSource real = TestPki.shared().loupeSource();
    AtomicBoolean armed = new AtomicBoolean(); // the engine mints for itself at start (HTTP/3): not gated
    // The client names a host of its own: reverse mode makes the default host's context at start, so a
    // client without SNI would find it made (or being made by the engine, not by its own lookup).
    String sniHost = "mint-during-close.test";
    CertificateSource gated = host -> {
      if (!armed.get() || !host.equals(sniHost)) {
        return real.certificateFor(host);
      }
      minting.countDown();
      while (true) {
        try {
          release.await(); // a slow mint that ends only after the engine has closed
          break;
        } catch (InterruptedException e) {
          // the engine's close interrupts its blocking threads; this mint goes on regardless
        }
      }
      return real.certificateFor(host);
    };
    RecordingLeakDetector.drain(); // what earlier tests in this JVM left is theirs
    ProxyFixture proxy = ProxyFixture.start(gated, b -> b.reverse(EngineConfig.Reverse.parse("https://127.0.0.1:9"))
        .upstreamProtocol(EngineConfig.UpstreamProtocol.H1));
    armed.set(true);
    SSLSocket client = (SSLSocket) TestPki.shared().clientTrustingLoupe().getSocketFactory()
        .createSocket("127.0.0.1", proxy.port());
    client.setSoTimeout(20_000);
    javax.net.ssl.SSLParameters params = client.getSSLParameters();
    params.setServerNames(List.of(new javax.net.ssl.SNIHostName(sniHost)));
    client.setSSLParameters(params);
    Thread handshake = new Thread(() -> {
      try {
        client.startHandshake(); // sends the ClientHello, then waits for an answer that never comes
      } catch (Exception expected) {
        // the engine closed the connection
      }
    });
    handshake.start();
    try {
      assertThat(minting.await(20, TimeUnit.SECONDS)).as("the leaf is being minted").isTrue();
      proxy.close(); // while the mint is still running
    } finally {
      release.countDown(); // the mint ends after the event loops have
      handshake.join(30_000);
      client.close();
    }
    Thread.sleep(300); // the late mint completes its future
    for (int i = 0; i < 5; i++) {
      System.gc();
      System.runFinalization();
      Thread.sleep(50);
      for (ByteBufAllocator a : new ByteBufAllocator[] {ByteBufAllocator.DEFAULT, PooledByteBufAllocator.DEFAULT}) {
        ByteBuf b = a.directBuffer(1);
        b.release();
        b = a.heapBuffer(1);
        b.release();
      }
    }
    List<String> leaks = RecordingLeakDetector.drain();
    assertThat(leaks).as("buffers leaked by closing the engine during a mint").isEmpty();
  }
}
