package dev.loupe.app.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.ProxyEngine;
import dev.loupe.engine.flow.Flow;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The requests {@code loupe browser} sends a running Loupe, on a real proxy and real sockets: the
 * token opens a listener whose flows carry the label; it lasts as long as the requesting connection
 * (closed politely or cut with a reset) and across a proxy restart; bad requests get an error and
 * open nothing.
 */
@Timeout(60)
class LaunchRequestsTest {
  private ProxyFixture proxy;
  private TestOrigin origin;
  private final AtomicReference<ProxyEngine> engine = new AtomicReference<>();
  private ClientListeners clients;
  private LaunchRequests requests;
  private InetSocketAddress at;

  @BeforeEach
  void start() throws Exception {
    proxy = ProxyFixture.start();
    origin = TestOrigin.http();
    engine.set(proxy.engine());
    clients = new ClientListeners(engine::get);
    requests = LaunchRequests.start(clients);
    at = new InetSocketAddress(InetAddress.getLoopbackAddress(), requests.port());
  }

  @AfterEach
  void stop() {
    requests.close();
    proxy.close();
    origin.close();
  }

  @Test
  void theTokenOpensAListenerTaggingItsFlowsUntilTheConnectionCloses() throws Exception {
    InetSocketAddress listener;
    try (LaunchRequests.Lease lease = LaunchRequests.Lease.request(at, requests.token(), "Google Chrome",
        Duration.ofSeconds(5))) {
      listener = lease.proxy();
      assertThat(listener.getAddress().isLoopbackAddress()).isTrue();
      assertThat(listener.getPort()).isNotEqualTo(proxy.port());
      assertThat(clients.entries()).extracting(ClientListeners.Entry::label).containsExactly("Google Chrome");
      assertThat(get(listener, "/status/200?tagged")).startsWith("HTTP/1.1 200 ");
      assertThat(proxy.awaitFlow("/status/200?tagged").client()).isEqualTo("Google Chrome");
      assertThat(get(proxy.address(), "/status/200?main")).startsWith("HTTP/1.1 200 ");
      assertThat(proxy.awaitFlow("/status/200?main").client()).as("the main listener tags nothing").isNull();
    }
    awaitRefused(listener);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> clients.entries().isEmpty());
  }

  @Test
  void aConnectionCutWithAResetClosesTheListenerToo() throws Exception {
    LaunchRequests.Lease lease = LaunchRequests.Lease.request(at, requests.token(), "Firefox", Duration.ofSeconds(5));
    InetSocketAddress listener = lease.proxy();
    assertThat(get(listener, "/status/200?before")).startsWith("HTTP/1.1 200 ");
    java.lang.reflect.Field f = LaunchRequests.Lease.class.getDeclaredField("socket");
    f.setAccessible(true);
    Socket s = (Socket) f.get(lease);
    s.setSoLinger(true, 0); // what the system does for a process killed outright
    s.close();
    awaitRefused(listener);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> clients.entries().isEmpty());
  }

  @Test
  void theListenerOutlivesAProxyRestartOnItsPort() throws Exception {
    try (LaunchRequests.Lease lease = LaunchRequests.Lease.request(at, requests.token(), "Chromium",
        Duration.ofSeconds(5))) {
      ProxyFixture next = ProxyFixture.start();
      proxy.close(); // as the app restarts: the old engine stops (its listeners with it), then they reopen
      proxy = next;
      engine.set(next.engine());
      clients.reopenOn(next.engine());
      assertThat(get(lease.proxy(), "/status/200?after-restart")).startsWith("HTTP/1.1 200 ");
      Flow f = next.awaitFlow("/status/200?after-restart");
      assertThat(f.client()).isEqualTo("Chromium");
    }
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> clients.entries().isEmpty());
  }

  @Test
  void badRequestsGetAnErrorAndOpenNothing() throws Exception {
    assertThatThrownBy(() -> LaunchRequests.Lease.request(at, "0".repeat(32), "Chromium", Duration.ofSeconds(5)))
        .isInstanceOf(IOException.class).hasMessage("Loupe refused: bad request");
    for (String line : new String[] {"GET / HTTP/1.1", LaunchRequests.MAGIC + " " + requests.token(),
        LaunchRequests.MAGIC + " " + requests.token() + " ", LaunchRequests.MAGIC + " " + requests.token() + " a\tb",
        LaunchRequests.MAGIC + " " + requests.token() + " " + "x".repeat(LaunchRequests.MAX_LABEL + 1),
        "x".repeat(LaunchRequests.MAX_LINE + 10)}) {
      assertThat(raw(line + "\n")).as(line).isEqualTo("ERROR bad request\n");
    }
    assertThat(raw("no newline at all")).as("then the end of input").isEqualTo("ERROR bad request\n");
    assertThat(clients.entries()).isEmpty();
    try (LaunchRequests.Lease lease = LaunchRequests.Lease.request(at, requests.token(), "Chromium",
        Duration.ofSeconds(5))) {
      assertThat(lease.proxy().getPort()).as("still serving").isPositive();
    }
  }

  @Test
  void closingTheServerClosesTheListenersItOpened() throws Exception {
    LaunchRequests.Lease lease = LaunchRequests.Lease.request(at, requests.token(), "Chromium", Duration.ofSeconds(5));
    requests.close();
    awaitRefused(lease.proxy());
    assertThatThrownBy(() -> new Socket(at.getAddress(), at.getPort()).close()).isInstanceOf(ConnectException.class);
    lease.close();
  }

  private static void awaitRefused(InetSocketAddress a) {
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
      try (Socket s = new Socket(a.getAddress(), a.getPort())) {
        return false;
      } catch (ConnectException e) {
        return true;
      }
    });
  }

  /** Sends {@code request} half-closed and reads what comes back until Loupe closes. */
  private String raw(String request) throws IOException {
    try (Socket s = new Socket(at.getAddress(), at.getPort())) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
      s.shutdownOutput();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private String get(InetSocketAddress via, String path) throws IOException {
    try (Socket s = new Socket(via.getAddress(), via.getPort())) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(("GET " + origin.url() + path + " HTTP/1.1\r\nHost: " + origin.authority()
          + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }
}
