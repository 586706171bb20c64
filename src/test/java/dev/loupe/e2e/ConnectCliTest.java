package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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

/**
 * The command line of connecting clients, on the real application in its own JVM: {@code --socks}
 * and {@code --proxy-auth} (refusals printed), {@code loupe env} finding the running Loupe and its
 * credentials ({@code eval} it and curl goes through), and {@code loupe browser} starting a real
 * headless Chromium on the running Loupe and deleting its profile when stopped.
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

  @Test
  void browserCommandStartsChromiumOnTheRunningLoupeAndDeletesItsProfile() throws Exception {
    assumeTrue(ExternalCommand.available("chromium"), "chromium is not installed");
    Path conf = tmp.resolve("browser-conf");
    Set<Path> profilesBefore = profiles();
    try (BrowserOrigin page = new BrowserOrigin();
         LoupeProcess loupe = LoupeProcess.start(List.of("-Xmx256m"), List.of("--headless", "--listen",
             "127.0.0.1:0", "--confdir", conf.toString(), "--trust-ca", originCa.toString()))) {
      loupe.awaitLine(LISTENING, START);
      LoupeProcess.Result list = LoupeProcess.run(START, "browser", "--list");
      assertThat(list.stdout()).anyMatch(l -> l.startsWith("chromium\tChromium\t"));
      try (LoupeProcess browser = LoupeProcess.start(List.of("-Xmx128m"), List.of("browser", "chromium",
          page.pageUrl("cli"), "--headless", "--confdir", conf.toString()))) {
        browser.awaitLine(Pattern.compile("^Started Chromium \\(pid \\d+\\) on Loupe at 127\\.0\\.0\\.1:"), START);
        assertThat(page.awaitResult("cli", Duration.ofSeconds(90))).as("page result; %s", browser.stdout())
            .isEqualTo("echo-cli");
        browser.terminate(); // SIGTERM: the browser is stopped and its profile deleted
        browser.awaitExit(START);
      }
      loupe.awaitLine(Pattern.compile("GET https://127\\.0\\.0\\.1:" + page.port() + "/page\\?t=cli 200"), START);
    }
    assertThat(profiles()).as("temporary profiles left behind").isEqualTo(profilesBefore);
  }

  private static Set<Path> profiles() throws java.io.IOException {
    try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return s.filter(p -> p.getFileName().toString().startsWith("loupe-chromium-")).collect(Collectors.toSet());
    }
  }
}
