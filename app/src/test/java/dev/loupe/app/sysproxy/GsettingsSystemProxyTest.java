package dev.loupe.app.sysproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GNOME backend and the whole {@code loupe --system-proxy} lifecycle against the real
 * gsettings on a real dconf store, isolated from this machine's user (see {@link
 * IsolatedGsettings}): switch, SIGTERM, kill -9 then restart or {@code --restore-system-proxy},
 * and refusing to clobber a running owner. Skipped only when dbus-run-session or gsettings is
 * not installed.
 */
@Timeout(180)
class GsettingsSystemProxyTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+) ");
  private static final String RESTORED = "Loupe: restored the system proxy settings (GNOME (gsettings))";

  @TempDir Path tmp;
  private IsolatedGsettings gsettings;
  private Path confdir;
  /** The user's settings before Loupe runs, as gsettings lists them. */
  private String before;

  @BeforeEach
  void knownSettings() throws Exception {
    IsolatedGsettings.assumeAvailable();
    gsettings = new IsolatedGsettings(tmp);
    confdir = Files.createDirectories(tmp.resolve("loupe-config"));
    gsettings.set("org.gnome.system.proxy", "mode", "'none'");
    gsettings.set("org.gnome.system.proxy", "ignore-hosts", "['corp.example', '10.0.0.0/8']");
    gsettings.set("org.gnome.system.proxy.http", "host", "'old.example'");
    gsettings.set("org.gnome.system.proxy.http", "port", "3128");
    before = gsettings.listAll();
    assertThat(before).contains("org.gnome.system.proxy mode 'none'",
        "org.gnome.system.proxy ignore-hosts ['corp.example', '10.0.0.0/8']",
        "org.gnome.system.proxy.http host 'old.example'", "org.gnome.system.proxy.http port 3128");
  }

  /** Starts {@code loupe --headless --system-proxy} and waits until gsettings points at it; returns the port. */
  private int startSwitched(IsolatedGsettings.Loupe loupe) throws Exception {
    int port = await().atMost(WAIT).until(() -> port(loupe), p -> p > 0);
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(loupe.session.isAlive()).as("running\n%s", loupe.output()).isTrue();
      assertThat(gsettings.get("org.gnome.system.proxy", "mode")).isEqualTo("'manual'");
    });
    assertThat(gsettings.get("org.gnome.system.proxy.http", "host")).isEqualTo("'127.0.0.1'");
    assertThat(gsettings.get("org.gnome.system.proxy.http", "port")).isEqualTo(Integer.toString(port));
    assertThat(gsettings.get("org.gnome.system.proxy.https", "host")).isEqualTo("'127.0.0.1'");
    assertThat(gsettings.get("org.gnome.system.proxy.https", "port")).isEqualTo(Integer.toString(port));
    assertThat(gsettings.get("org.gnome.system.proxy", "ignore-hosts"))
        .isEqualTo("['localhost', '127.0.0.0/8', '::1', 'corp.example', '10.0.0.0/8']");
    await().atMost(WAIT).until(() -> loupe.printed("System proxy (GNOME (gsettings)) now points at Loupe, 127.0.0.1:" + port));
    return port;
  }

  private static int port(IsolatedGsettings.Loupe loupe) {
    for (String line : loupe.stdout) {
      Matcher m = LISTENING.matcher(line);
      if (m.find()) {
        return Integer.parseInt(m.group(1));
      }
    }
    if (!loupe.session.isAlive()) {
      throw new AssertionError("Loupe exited\n" + loupe.output());
    }
    return 0;
  }

  private IsolatedGsettings.Loupe startLoupe(String... extra) throws Exception {
    List<String> args = new java.util.ArrayList<>(List.of("--headless", "--quiet", "--listen", "127.0.0.1:0",
        "--confdir", confdir.toString()));
    args.addAll(List.of(extra));
    return gsettings.startLoupe(args.toArray(String[]::new));
  }

  /** kill -9 of the Loupe JVM while it has the system proxy switched; returns its pid. */
  private long crashWhileSwitched() throws Exception {
    try (IsolatedGsettings.Loupe loupe = startLoupe("--system-proxy")) {
      startSwitched(loupe);
      ProcessHandle java = loupe.java();
      Path state = confdir.resolve("system-proxy.json");
      assertThat(new ObjectMapper().readTree(state.toFile()).get("pid").asLong()).isEqualTo(java.pid());
      assertThat(java.destroyForcibly()).isTrue(); // SIGKILL: no shutdown hook runs
      loupe.awaitExit(WAIT);
      assertThat(loupe.printed(RESTORED)).isFalse();
      assertThat(gsettings.get("org.gnome.system.proxy", "mode")).isEqualTo("'manual'");
      assertThat(state).exists();
      return java.pid();
    }
  }

  @Test
  void afterKill9TheNextStartRestoresTheOriginalSettingsExactly() throws Exception {
    long crashed = crashWhileSwitched();
    try (IsolatedGsettings.Loupe again = startLoupe()) {
      await().atMost(WAIT).until(() -> port(again) > 0);
      assertThat(again.stdout).anySatisfy(l -> assertThat(l).startsWith(RESTORED + " that Loupe process " + crashed
          + " left switched to 127.0.0.1:"));
      assertThat(gsettings.listAll()).isEqualTo(before);
      assertThat(confdir.resolve("system-proxy.json")).doesNotExist();
      again.java().destroy();
      again.awaitExit(WAIT);
    }
    assertThat(gsettings.listAll()).isEqualTo(before);
  }

  @Test
  void afterKill9RestoreSystemProxyRestoresThenHasNothingLeft() throws Exception {
    long crashed = crashWhileSwitched();
    try (IsolatedGsettings.Loupe restore = startLoupe("--restore-system-proxy")) {
      assertThat(restore.awaitExit(WAIT)).as(restore.output()).isZero();
      assertThat(restore.stdout).anySatisfy(l -> assertThat(l).startsWith(RESTORED + " saved by Loupe process " + crashed));
    }
    assertThat(gsettings.listAll()).isEqualTo(before);
    try (IsolatedGsettings.Loupe again = startLoupe("--restore-system-proxy")) {
      assertThat(again.awaitExit(WAIT)).isZero();
      assertThat(again.stdout).anySatisfy(l -> assertThat(l).startsWith("Loupe: nothing to restore"));
    }
  }

  @Test
  void sigtermRestoresTheOriginalSettings() throws Exception {
    try (IsolatedGsettings.Loupe loupe = startLoupe("--system-proxy")) {
      startSwitched(loupe);
      loupe.java().destroy(); // SIGTERM
      loupe.awaitExit(WAIT);
      assertThat(loupe.stdout).as(loupe.output()).anySatisfy(l -> assertThat(l).startsWith(RESTORED));
    }
    assertThat(gsettings.listAll()).isEqualTo(before);
    assertThat(confdir.resolve("system-proxy.json")).doesNotExist();
  }

  @Test
  void refusesWhileAnotherLoupeHasItSwitched() throws Exception {
    Process other = new ProcessBuilder("sleep", "120").start();
    try {
      StateFile.State theirs = new StateFile.State(1, "gnome", other.pid(),
          other.toHandle().info().startInstant().map(Instant::toString).orElse(null), "127.0.0.1:9",
          Instant.now().toString(), Map.of("org.gnome.system.proxy mode", "'auto'"));
      new StateFile(confdir).write(theirs);
      String stateBefore = Files.readString(confdir.resolve("system-proxy.json"));
      try (IsolatedGsettings.Loupe loupe = startLoupe("--system-proxy")) {
        assertThat(loupe.awaitExit(WAIT)).as(loupe.output()).isEqualTo(1);
        assertThat(loupe.stderr).as(loupe.output()).anySatisfy(l -> assertThat(l).startsWith(
            "loupe: --system-proxy: another Loupe (process " + other.pid() + ") has switched the system proxy"
                + " to 127.0.0.1:9; stop it first"));
      }
      assertThat(gsettings.listAll()).isEqualTo(before);
      assertThat(Files.readString(confdir.resolve("system-proxy.json"))).isEqualTo(stateBefore);
    } finally {
      other.destroyForcibly();
      other.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void serviceRoundTripsUnusualValuesExactly() throws Exception {
    gsettings.set("org.gnome.system.proxy", "ignore-hosts", "@as []");
    gsettings.set("org.gnome.system.proxy", "mode", "'auto'");
    gsettings.set("org.gnome.system.proxy.https", "host", "\"it's.example\"");
    String unusual = gsettings.listAll();
    assertThat(unusual).contains("org.gnome.system.proxy ignore-hosts @as []");
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    SystemProxyService service = new SystemProxyService(new Backends.Detection(new GnomeBackend(gsettings.runner()), null),
        gsettings.runner(), confdir, new PrintStream(printed, true, StandardCharsets.UTF_8));
    service.listening(new InetSocketAddress("0.0.0.0", 8123), false);
    service.enable();
    assertThat(gsettings.get("org.gnome.system.proxy", "ignore-hosts")).isEqualTo("['localhost', '127.0.0.0/8', '::1']");
    assertThat(gsettings.get("org.gnome.system.proxy.https", "host")).isEqualTo("'127.0.0.1'");
    assertThat(gsettings.get("org.gnome.system.proxy.https", "port")).isEqualTo("8123");
    service.disable();
    assertThat(gsettings.listAll()).isEqualTo(unusual);
  }

  @Test
  void aRealGsettingsErrorIsReportedVerbatimAndNothingStaysChanged() throws Exception {
    // A backend whose third write names a key the schema does not have: gsettings itself fails.
    GnomeBackend real = new GnomeBackend(gsettings.runner());
    ProxyBackend broken = new ProxyBackend() {
      @Override
      public String id() {
        return real.id();
      }

      @Override
      public String displayName() {
        return real.displayName();
      }

      @Override
      public Map<String, String> capture() throws SystemProxyException {
        return real.capture();
      }

      @Override
      public void apply(ProxyTarget target, Map<String, String> previous) throws SystemProxyException {
        gsettings.runner().check(List.of("gsettings", "set", "org.gnome.system.proxy", "mode", "'manual'"));
        gsettings.runner().check(List.of("gsettings", "set", "org.gnome.system.proxy.http", "port", "8123"));
        gsettings.runner().check(List.of("gsettings", "set", "org.gnome.system.proxy", "no-such-key", "1"));
      }

      @Override
      public void restore(Map<String, String> saved) throws SystemProxyException {
        real.restore(saved);
      }
    };
    SystemProxyService service = new SystemProxyService(new Backends.Detection(broken, null), gsettings.runner(),
        confdir, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    service.listening(new InetSocketAddress("127.0.0.1", 8123), false);
    assertThatThrownBy(service::enable).isInstanceOf(SystemProxyException.class)
        // (dbus-run-session, which only the test puts around gsettings, may add its own stderr lines first)
        .hasMessageStartingWith("gsettings set org.gnome.system.proxy no-such-key 1 failed (exit 1): ")
        // quoted with \u201c\u201d in a UTF-8 locale, with ? in the C locale
        .hasMessageMatching("(?s).*No such key .no-such-key.$");
    assertThat(gsettings.listAll()).isEqualTo(before);
    assertThat(confdir.resolve("system-proxy.json")).doesNotExist();
  }
}
