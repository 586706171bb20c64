package dev.loupe.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loupe.app.connect.ClientListeners;
import dev.loupe.app.connect.ConnectService;
import dev.loupe.app.connect.RunningFile;
import dev.loupe.app.connect.RunningLoupe;
import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.ProxyEngine;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import dev.loupe.ui.connect.ConnectPort;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Remote access on a real proxy, wired as the app wires it ({@link EngineSwitch},
 * {@link RunningLoupe}, {@link ConnectService}): switching it on re-binds the listener so a socket to
 * this machine's LAN address connects, a request from there without credentials gets 407 and never
 * reaches the origin, with them it is proxied; the status bar is told the LAN address, port and
 * that a login is required; {@code running.json} follows; a launched browser's listener is reopened
 * on its port. Switching it off: the LAN address is refused again and the status bar is told the
 * loopback address.
 */
@Timeout(60)
class RemoteAccessListeningTest {
  private static final String USER = "phone";
  private static final String PASSWORD = "Tr7pQx2mKz9wHa4N";

  @TempDir
  Path conf;
  private TestOrigin origin;
  private EngineSwitch engines;
  private RunningLoupe running;
  private ConnectService connect;
  private final List<String> statusBar = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    origin = TestOrigin.http();
    TestPki pki = TestPki.shared();
    EngineConfig config = EngineConfig.builder(pki.loupeSource())
        .listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .trustCa(pki.originCa().certificate())
        .build();
    FlowStore store = FlowStore.create();
    engines = new EngineSwitch(ProxyEngine.start(config, store, InterceptService.create()), config, store);
    running = RunningLoupe.start(conf, engines::current);
    engines.onRestart(running::restarted);
    connect = new ConnectService(engines::current, engines::config, engines::restart, running.clients(), conf,
        pki.loupeCa());
    connect.onListening(statusBar::add);
  }

  @AfterEach
  void stop() {
    connect.close();
    running.close();
    engines.current().close();
    engines.current().intercept().close();
    origin.close();
  }

  @Test
  void theListenerMovesToTheLanAndBackAndAsksRemoteClientsToLogIn() throws Exception {
    String lan = ConnectService.lanAddresses().stream().filter(a -> !a.contains(":")).findFirst().orElse(null);
    assumeTrue(lan != null, "this machine has no LAN (non-loopback IPv4) address");
    int port = engines.current().address().getPort();
    InetSocketAddress viaLan = new InetSocketAddress(lan, port);
    assertThatThrownBy(() -> new Socket(viaLan.getAddress(), port).close()).as("loopback only at first")
        .isInstanceOf(ConnectException.class);
    ClientListeners.Entry browser = running.clients().open("Chromium");
    int browserPort = browser.address().getPort();

    ConnectPort.RemoteAccess on = connect.applyRemoteAccess(
        new ConnectPort.RemoteAccess(true, true, USER, PASSWORD, port, List.of()));
    assertThat(on.enabled()).isTrue();
    assertThat(on.requireAuth()).isTrue();
    assertThat(on.username()).isEqualTo(USER);
    assertThat(engines.current().address().getPort()).isEqualTo(port);
    assertThat(engines.current().address().getAddress().isAnyLocalAddress()).isTrue();
    assertThat(statusBar).last().asString().contains(lan + ":" + port)
        .endsWith(" (remote access, login required)");

    assertThat(exchange(viaLan, null, "/status/200?no-credentials")).startsWith("HTTP/1.1 407 ");
    assertThat(exchange(viaLan, basic(USER, "wrong-password"), "/status/200?wrong")).startsWith("HTTP/1.1 407 ");
    assertThat(exchange(viaLan, basic(USER, PASSWORD), "/status/200?logged-in")).startsWith("HTTP/1.1 200 ");
    assertThat(origin.seen()).extracting(TestOrigin.Seen::uri).containsExactly("/status/200?logged-in");
    assertThat(engines.current().accessLog().recent()).hasSize(2)
        .allSatisfy(r -> assertThat(r.client().getAddress().getHostAddress()).isEqualTo(lan));
    assertThat(connect.refusals()).hasSize(2);
    assertThat(RunningFile.read(conf).proxy()).as("running.json: this machine's clients use loopback")
        .isEqualTo(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));

    // the launched browser's listener came back on its port, still tagging its flows
    assertThat(exchange(new InetSocketAddress(InetAddress.getLoopbackAddress(), browserPort), null,
        "/status/200?browser")).startsWith("HTTP/1.1 200 ");
    Flow tagged = awaitFlow("/status/200?browser");
    assertThat(tagged.client()).isEqualTo("Chromium");
    FlowLine line = new FlowLine(java.time.ZoneId.systemDefault());
    assertThat(line.format(tagged)).as("the headless line").endsWith(" client Chromium");
    assertThat(line.format(awaitFlow("/status/200?logged-in"))).doesNotContain(" client ");

    ConnectPort.RemoteAccess off = connect.applyRemoteAccess(
        new ConnectPort.RemoteAccess(false, true, USER, PASSWORD, port, List.of()));
    assertThat(off.enabled()).isFalse();
    assertThat(statusBar).last().isEqualTo(InetAddress.getLoopbackAddress().getHostAddress() + ":" + port);
    assertThatThrownBy(() -> new Socket(viaLan.getAddress(), port).close()).as("off: the LAN address is refused")
        .isInstanceOf(ConnectException.class);
    assertThat(exchange(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), null, "/status/200?local"))
        .as("this machine needs no login").startsWith("HTTP/1.1 200 ");
    assertThat(statusBar).hasSize(2);
    browser.close();
  }

  @Test
  void theStatusBarTextSaysWhoMustLogIn() {
    InetSocketAddress any = new InetSocketAddress("0.0.0.0", 8080);
    assertThat(ConnectService.listeningText(new InetSocketAddress("127.0.0.1", 8080), null)).isEqualTo("127.0.0.1:8080");
    assertThat(ConnectService.listeningText(new InetSocketAddress("192.0.2.7", 8080), null))
        .isEqualTo("192.0.2.7:8080 (remote access, NO login: anyone on the network can use it)");
    assertThat(ConnectService.listeningText(any, new dev.loupe.engine.api.ProxyAuth("a", "b", false)))
        .endsWith(":8080 (remote access, login required, on this machine too)");
  }

  private Flow awaitFlow(String uri) {
    return Awaitility.await().atMost(Duration.ofSeconds(10)).until(
        () -> engines.current().flows().snapshot().stream()
            .filter(f -> f.request() != null && f.request().url().endsWith(uri) && f.response() != null)
            .findFirst().orElse(null), f -> f != null);
  }

  /** One request for {@code path} on the origin through the proxy at {@code proxy}; the status line and headers. */
  private String exchange(InetSocketAddress proxy, String authorization, String path) throws IOException {
    try (Socket s = new Socket(proxy.getAddress(), proxy.getPort())) {
      s.setSoTimeout(10_000);
      String request = "GET " + origin.url() + path + " HTTP/1.1\r\nHost: " + origin.authority() + "\r\n"
          + (authorization == null ? "" : "Proxy-Authorization: " + authorization + "\r\n")
          + "Connection: close\r\n\r\n";
      s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  private static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }
}
