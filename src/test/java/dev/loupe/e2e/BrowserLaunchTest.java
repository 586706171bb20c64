package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loupe.app.connect.Browser;
import dev.loupe.app.connect.BrowserLauncher;
import dev.loupe.app.connect.Browsers;
import dev.loupe.app.connect.LaunchedBrowser;
import dev.loupe.ca.CertificateAuthority;
import dev.loupe.engine.api.ClientListener;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real Chromium and Firefox, started headless by {@link BrowserLauncher} (the code behind the
 * window's "Open browser" and {@code loupe browser}) on a launched-client listener of a real Loupe,
 * load an HTTPS page from a real origin and run a WebSocket echo through Loupe with no certificate
 * error (the page reports the echo back; a browser refusing Loupe's certificate never would). The
 * flows carry the browser's name ({@code ~client}); the temporary profile is gone after the browser
 * exits; and the system's NSS databases, browser profiles and proxy settings are byte-for-byte what
 * they were before.
 */
@Timeout(300)
class BrowserLaunchTest {
  static BrowserOrigin origin;
  static ProxyFixture proxy;

  @BeforeAll
  static void start() throws Exception {
    origin = new BrowserOrigin();
    proxy = ProxyFixture.start();
  }

  @AfterAll
  static void stop() {
    proxy.close();
    origin.close();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"chromium", "chromium over SOCKS5", "firefox"})
  void aLaunchedBrowserLoadsHttpsAndAWebSocketThroughLoupeAndLeavesTheSystemAsItWas(String which) throws Exception {
    boolean socks = which.endsWith("SOCKS5");
    Browser browser = Browsers.pick(Browsers.installed(), which.split(" ")[0]);
    assumeTrue(browser != null, which + " is not installed (apt-get install chromium firefox-esr libnss3-tools)");
    Map<String, String> before = systemState();
    CertificateAuthority ca = TestPki.shared().loupeCa();
    ClientListener listener = proxy.engine().openClientListener(browser.name(), 0);
    String token = UUID.randomUUID().toString().substring(0, 8);
    LaunchedBrowser launched = BrowserLauncher.launch(browser, new BrowserLauncher.Spec(listener.address(), socks,
        ca.certificate(), ca.certificatePath(), origin.pageUrl(token), true, List.of(), Map.of()));
    launched.onExit(listener::close);
    Path profile = launched.profile();
    try {
      String result = origin.awaitResult(token, Duration.ofSeconds(90));
      assertThat(result).as("what the page reported (%s printed: %s; origin saw %s)", browser.name(),
          launched.outputTail(), origin.requests()).isEqualTo("echo-" + token);
      Flow page = proxy.awaitFlow("/page?t=" + token);
      assertThat(page.response().status()).isEqualTo(200);
      assertThat(page.clientConnection().tls()).as("decrypted by Loupe").isNotNull();
      assertThat(page.client()).isEqualTo(browser.name());
      assertThat(Filter.parse("~client " + browser.name().split(" ")[0]).test(page)).isTrue();
      assertThat(Filter.parse("!~client .").test(page)).isFalse();
      // The WebSocket flow stays in flight while the socket is open; its messages are recorded as they pass.
      assertThat(proxy.store().snapshot()).anySatisfy(f -> {
        assertThat(f.isWebSocket()).isTrue();
        assertThat(f.client()).isEqualTo(browser.name());
        assertThat(f.webSocketMessages()).extracting(m -> new String(m.payload(), StandardCharsets.UTF_8))
            .containsExactly("echo-" + token, "echo-" + token); // there and back
      });
    } finally {
      launched.close();
    }
    assertThat(launched.exited()).isDone();
    assertThat(profile).as("the temporary profile").doesNotExist();
    assertThat(listener.isOpen()).isFalse();
    assertThat(systemState()).as("NSS databases, browser profiles, proxy settings").isEqualTo(before);
  }

  /**
   * What a launch must not change: the user's NSS database (Chromium's trust store on Linux),
   * Firefox and Chromium profiles and caches (Chromium's crash database included), the system CA
   * folder, and the desktop proxy settings — every regular file under them, by content. Not
   * compared: empty folders, and Firefox's crash-reporter notes under {@code ~/.mozilla}
   * ({@code Crash Reports/InstallTime…}, {@code Pending Pings}), which any Firefox start writes
   * whatever its profile and which hold no profile, trust or proxy setting.
   */
  static Map<String, String> systemState() throws IOException {
    Map<String, String> state = new TreeMap<>();
    Path home = Path.of(System.getProperty("user.home"));
    for (Path root : List.of(home.resolve(".pki"), home.resolve(".mozilla"), home.resolve(".config/chromium"),
        home.resolve(".config/google-chrome"), home.resolve(".cache/mozilla"), home.resolve(".cache/chromium"),
        Path.of("/etc/ssl/certs"), Path.of("/usr/local/share/ca-certificates"))) {
      if (!Files.exists(root)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : files.filter(Files::isRegularFile).filter(f -> !firefoxCrashReporterNote(home, f)).toList()) {
          try (InputStream in = Files.newInputStream(f)) {
            state.put(f.toString(), TestData.sha256(in));
          } catch (IOException e) {
            state.put(f.toString(), "unreadable");
          }
        }
      }
    }
    if (ExternalCommand.available("gsettings")) {
      state.put("gsettings org.gnome.system.proxy",
          ExternalCommand.run(List.of("gsettings", "list-recursively", "org.gnome.system.proxy")).out());
    }
    for (String v : List.of("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "no_proxy")) {
      state.put("env " + v, String.valueOf(System.getenv(v)));
    }
    return state;
  }

  /** {@code ~/.mozilla/<app>/Crash Reports/…} or {@code ~/.mozilla/<app>/Pending Pings/…}. */
  private static boolean firefoxCrashReporterNote(Path home, Path f) {
    Path rel = home.resolve(".mozilla").relativize(f);
    return !rel.startsWith("..") && rel.getNameCount() > 2
        && (rel.getName(1).toString().equals("Crash Reports") || rel.getName(1).toString().equals("Pending Pings"));
  }
}
