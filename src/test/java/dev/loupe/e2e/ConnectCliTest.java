package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loupe.app.connect.Browser;
import dev.loupe.app.connect.Browsers;
import dev.loupe.app.connect.RunningFile;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The command line of connecting clients, on the real application in its own JVM: {@code --socks}
 * and {@code --proxy-auth} (refusals printed), {@code loupe env} finding the running Loupe and its
 * credentials ({@code eval} it and curl goes through), and {@code loupe browser} starting real
 * headless Chromium and Firefox on the running Loupe, their flows tagged with their names, and
 * deleting their profiles when stopped.
 */
@Timeout(240)
class ConnectCliTest {
  private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)\\b");
  private static final Pattern SOCKS = Pattern.compile("SOCKS5 on the same port and on 127\\.0\\.0\\.1:(\\d+);");
  private static final Duration START = Duration.ofSeconds(60);

  static TestOrigin origin;
  @TempDir
  static Path tmp;
  static Path originCa;

  @BeforeAll
  static void start() throws Exception {
    origin = TestOrigin.h2AndH1();
    originCa = tmp.resolve("origin-ca.pem");
    TestPki.shared().originCa().exportPem(originCa);
  }

  @AfterAll
  static void stop() {
    origin.close();
  }

  @Test
  void socksAndProxyAuthAndEnvForTheRunningLoupe() throws Exception {
    assumeTrue(ExternalCommand.available("curl"), "curl is not installed");
    Path conf = tmp.resolve("auth-conf");
    try (LoupeProcess loupe = LoupeProcess.start(List.of("-Xmx256m"), List.of("--headless", "--listen",
        "127.0.0.1:0", "--socks", "127.0.0.1:0", "--proxy-auth", "alice:pa ss", "--confdir", conf.toString(),
        "--trust-ca", originCa.toString()))) {
      int port = Integer.parseInt(loupe.awaitLine(LISTENING, START).group(1));
      int socks = Integer.parseInt(loupe.awaitLine(SOCKS, START).group(1));
      loupe.awaitLine(Pattern.compile("Proxy authentication: every client must log in as 'alice'"), START);
      assertThat(conf.resolve("running.json")).isRegularFile();

      LoupeProcess.Result env = LoupeProcess.run(START, "env", "--shell", "bash", "--confdir", conf.toString());
      assertThat(env.exitCode()).as(env.stderr().toString()).isZero();
      String script = String.join("\n", env.stdout());
      assertThat(script).contains("export https_proxy='http://alice:pa%20ss@127.0.0.1:" + port + "'");
      Path setup = tmp.resolve("env.sh");
      Files.writeString(setup, script);
      ExternalCommand curl = ExternalCommand.run(List.of("bash", "-c", "set -o pipefail; eval \"$(cat " + setup
          + ")\" && curl -sS -f " + origin.url() + "/bytes/4242 | sha256sum | cut -d' ' -f1"), Map.of(), null, 60);
      assertThat(curl.out().trim()).as(curl.stderr()).isEqualTo(TestData.sha256(4242));

      ExternalCommand refused = ExternalCommand.run(List.of("curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
          "--noproxy", "", "-x", "http://127.0.0.1:" + port, origin.url().replace("https", "http") + "/x"));
      assertThat(refused.out()).isEqualTo("407");
      loupe.awaitLine(Pattern.compile("REFUSED 127\\.0\\.0\\.1 \\(HTTP\\): no credentials"), START);

      ExternalCommand viaSocks = ExternalCommand.run(List.of("curl", "-sS", "-f", "--socks5-hostname",
          "127.0.0.1:" + socks, "--proxy-user", "alice:pa ss", "--cacert",
          conf.resolve("ca-cert.pem").toString(), origin.url() + "/bytes/99"));
      assertThat(viaSocks.exit()).as(viaSocks.stderr()).isZero();
      assertThat(TestData.sha256(viaSocks.stdout())).isEqualTo(TestData.sha256(99));
      loupe.terminate();
      loupe.awaitExit(START);
    }
    assertThat(conf.resolve("running.json")).as("removed at exit").doesNotExist();
  }

  /**
   * {@code loupe browser NAME URL --headless} on a running headless Loupe: the browser gets a
   * listener of its own from that Loupe, loads an HTTPS page and a WebSocket through it with no
   * certificate error, and every flow of it is printed ending in {@code client NAME}; when the command
   * is stopped the browser goes, its profile is deleted and its listener closed. Firefox runs against
   * a Loupe that asks every local client to log in: the browser's own listener lets it in without.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"chromium", "firefox"})
  void browserCommandTagsItsFlowsOnTheRunningLoupeAndDeletesItsProfile(String which) throws Exception {
    Browser browser = Browsers.pick(Browsers.installed(), which);
    assumeTrue(browser != null, which + " is not installed");
    boolean auth = which.equals("firefox");
    Path conf = tmp.resolve(which + "-conf");
    Set<Path> profilesBefore = profiles(which);
    List<String> args = new java.util.ArrayList<>(List.of("--headless", "--listen", "127.0.0.1:0", "--confdir",
        conf.toString(), "--trust-ca", originCa.toString()));
    if (auth) {
      args.addAll(List.of("--proxy-auth", "alice:pa ss"));
    }
    String token = which + "-cli";
    String name = Pattern.quote(browser.name());
    try (BrowserOrigin page = new BrowserOrigin();
         LoupeProcess loupe = LoupeProcess.start(List.of("-Xmx256m"), args)) {
      int port = Integer.parseInt(loupe.awaitLine(LISTENING, START).group(1));
      RunningFile running = RunningFile.read(conf);
      assertThat(running).isNotNull();
      assertThat(running.launchAddress()).as("where loupe browser asks for a listener").isNotNull();
      assertThat(running.username()).isEqualTo(auth ? "alice" : null);
      if (which.equals("chromium")) {
        LoupeProcess.Result list = LoupeProcess.run(START, "browser", "--list");
        assertThat(list.stdout()).anyMatch(l -> l.startsWith("chromium\tChromium\t"));
      }
      int browserPort;
      try (LoupeProcess command = LoupeProcess.start(List.of("-Xmx128m"), List.of("browser", which,
          page.pageUrl(token), "--headless", "--confdir", conf.toString()))) {
        browserPort = Integer.parseInt(command.awaitLine(Pattern.compile(
            "^Started " + name + " \\(pid \\d+\\) on Loupe at 127\\.0\\.0\\.1:(\\d+) "), START).group(1));
        assertThat(browserPort).as("a listener of its own").isNotEqualTo(port);
        command.awaitLine(Pattern.compile("^Its flows show \"" + name + "\" in Loupe's Client column"), START);
        assertThat(page.awaitResult(token, Duration.ofSeconds(90))).as("page result; %s", command.stdout())
            .isEqualTo("echo-" + token);
        loupe.awaitLine(Pattern.compile("GET https://127\\.0\\.0\\.1:" + page.port() + "/page\\?t=" + token
            + " 200 .* client " + name + "$"), START);
        command.terminate(); // SIGTERM: the browser is stopped, its profile deleted, its listener given up
        command.awaitExit(START);
      }
      // the WebSocket's flow completes when the browser goes
      loupe.awaitLine(Pattern.compile("GET https://127\\.0\\.0\\.1:" + page.port() + "/ws .* websocket 2 messages"
          + ".* client " + name + "$"), START);
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", browserPort)) {
          return false;
        } catch (java.net.ConnectException e) {
          return true;
        }
      });
      assertThat(loupe.stdout()).as("every flow of the page's origin is the browser's")
          .filteredOn(l -> l.contains("://127.0.0.1:" + page.port() + "/")).isNotEmpty()
          .allMatch(l -> l.endsWith(" client " + browser.name()));
      if (auth) {
        assertThat(loupe.stdout()).noneMatch(l -> l.contains("REFUSED"));
      }
    }
    assertThat(profiles(which)).as("temporary profiles left behind").isEqualTo(profilesBefore);
  }

  private static Set<Path> profiles(String which) throws java.io.IOException {
    try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return s.filter(p -> p.getFileName().toString().startsWith("loupe-" + which + "-")).collect(Collectors.toSet());
    }
  }
}
