package dev.loupe.testing;

import dev.loupe.engine.api.CertificateSource;
import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.ProxyEngine;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.internal.record.RecordingStore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.Socket;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A real Loupe proxy on a free loopback port, trusting the test origin CA, plus clients pointed
 * at it. Close it after the test.
 */
public final class ProxyFixture implements AutoCloseable {
  private final ProxyEngine engine;
  private final FlowStore store;

  private ProxyFixture(ProxyEngine engine, FlowStore store) {
    this.engine = engine;
    this.store = store;
  }

  public static ProxyFixture start() throws IOException {
    return start(b -> {});
  }

  public static ProxyFixture start(Consumer<EngineConfig.Builder> customize) throws IOException {
    return start(TestPki.shared().loupeSource(), customize);
  }

  /** A proxy that gets its interception certificates from {@code certificates} (e.g. a gated or counting one). */
  public static ProxyFixture start(CertificateSource certificates, Consumer<EngineConfig.Builder> customize)
      throws IOException {
    TestPki pki = TestPki.shared();
    EngineConfig.Builder b = EngineConfig.builder(certificates)
        .listen(new InetSocketAddress("127.0.0.1", 0))
        .trustCa(pki.originCa().certificate());
    customize.accept(b);
    RecordingStore store = new RecordingStore();
    return new ProxyFixture(ProxyEngine.start(b.build(), store), store);
  }

  public ProxyEngine engine() {
    return engine;
  }

  public FlowStore store() {
    return store;
  }

  /** The proxy's rules, breakpoints and paused flows. */
  public dev.loupe.engine.api.intercept.InterceptService intercept() {
    return engine.intercept();
  }

  public InetSocketAddress address() {
    return engine.address();
  }

  public int port() {
    return engine.address().getPort();
  }

  /** A JDK HttpClient (HTTP/1.1) using the proxy and trusting Loupe's CA. */
  public HttpClient client() {
    return clientBuilder().build();
  }

  public HttpClient.Builder clientBuilder() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .proxy(ProxySelector.of(engine.address()))
        .sslContext(TestPki.shared().clientTrustingLoupe())
        .connectTimeout(Duration.ofSeconds(10));
  }

  /** A plain socket connected to the proxy (for raw HTTP tests). */
  public Socket socket() throws IOException {
    Socket s = new Socket("127.0.0.1", port());
    s.setSoTimeout(15_000);
    return s;
  }

  /** Waits (up to 15 s) until {@code count} flows matching {@code which} have ended; returns them. */
  public List<Flow> awaitFlows(int count, Predicate<Flow> which) {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (true) {
      List<Flow> done = store.snapshot().stream()
          .filter(f -> f.state() != FlowState.IN_FLIGHT)
          .filter(which)
          .toList();
      if (done.size() >= count) {
        return done;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("expected " + count + " finished flows, have " + done.size() + ": "
            + store.snapshot());
      }
      java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
    }
  }

  /** The single ended flow whose URL contains {@code urlPart}. */
  public Flow awaitFlow(String urlPart) {
    return awaitFlows(1, f -> f.request() != null && f.request().url().contains(urlPart)).get(0);
  }

  @Override
  public void close() {
    engine.close();
    store.clear();
  }
}
