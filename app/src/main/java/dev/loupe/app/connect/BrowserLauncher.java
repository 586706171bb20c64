package dev.loupe.app.connect;

import dev.loupe.ca.export.SpkiPin;
import dev.loupe.ca.trust.CaCertificate;
import dev.loupe.ca.trust.NssDatabase;
import dev.loupe.ca.trust.ProcessCommandRunner;
import dev.loupe.ca.trust.TrustResult;
import dev.loupe.engine.api.ListenAddress;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Starts a browser with a fresh, temporary profile that uses Loupe as its proxy and trusts Loupe's
 * CA — in that profile only: nothing on the system changes (no system proxy, no system or user
 * trust store, not the user's own browser profile), and the profile is deleted when the browser
 * exits ({@link LaunchedBrowser}).
 *
 * <ul>
 *   <li><b>Chromium family</b>: {@code --user-data-dir} in a new temp folder,
 *       {@code --proxy-server} (loopback included: {@code <-loopback>}), and the CA's public-key pin
 *       in {@code --ignore-certificate-errors-spki-list} (honoured only with a user data dir of its
 *       own), so every chain Loupe presents — the CA is in each — is accepted; its crash database
 *       in the temporary folder too ({@code BREAKPAD_DUMP_LOCATION});
 *   <li><b>Firefox</b>: a new profile folder with {@code user.js} (manual proxy for HTTP and TLS,
 *       loopback included, first-run pages and telemetry off) and its own NSS database holding the
 *       CA as trusted for websites ({@code certutil}, from libnss3-tools), started with
 *       {@code --profile DIR --no-remote}. (Firefox still notes its installation for its crash
 *       reporter under {@code ~/.mozilla}: {@code Crash Reports}, {@code Pending Pings}; no
 *       profile, trust or proxy setting.)
 * </ul>
 *
 * <p>Blocking (creates files, runs {@code certutil}): call it off UI threads.
 */
public final class BrowserLauncher {
  private BrowserLauncher() {}

  /**
   * What to start.
   *
   * @param proxy      Loupe's address for this browser (its own listener, so its flows are tagged)
   * @param socks      true: {@code socks5://} instead of {@code http://} (Chromium; Firefox's SOCKS prefs)
   * @param ca         Loupe's CA certificate
   * @param caPem      where it is as PEM (for certutil)
   * @param url        the page to open, or null for a blank one
   * @param headless   without a window (tests, servers)
   * @param extraArgs  more command-line arguments
   * @param extraPrefs Firefox: more {@code user.js} preferences (String, Integer or Boolean values)
   */
  public record Spec(InetSocketAddress proxy, boolean socks, X509Certificate ca, Path caPem, String url,
      boolean headless, List<String> extraArgs, Map<String, Object> extraPrefs) {
    public Spec {
      Objects.requireNonNull(proxy, "proxy");
      Objects.requireNonNull(ca, "ca");
      Objects.requireNonNull(caPem, "caPem");
      extraArgs = List.copyOf(extraArgs);
      extraPrefs = Map.copyOf(extraPrefs);
    }

    /** A browser with a window, on {@code proxy}, opening {@code url}. */
    public static Spec of(InetSocketAddress proxy, X509Certificate ca, Path caPem, String url) {
      return new Spec(proxy, false, ca, caPem, url, false, List.of(), Map.of());
    }
  }

  /**
   * Prepares the profile and starts {@code browser}.
   *
   * @throws IOException when the profile cannot be made (e.g. certutil is missing for Firefox) or
   *                     the browser cannot be started; nothing is left behind then
   */
  public static LaunchedBrowser launch(Browser browser, Spec spec) throws IOException {
    Path profile = Files.createTempDirectory("loupe-" + browser.id() + "-"); // owner-only (0700)
    try {
      List<String> command = browser.family() == Browser.Family.CHROMIUM
          ? chromium(browser, spec, profile) : firefox(browser, spec, profile);
      Path log = profile.resolveSibling(profile.getFileName() + ".log");
      ProcessBuilder pb = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(log.toFile())
          .redirectInput(ProcessBuilder.Redirect.PIPE);
      if (browser.family() == Browser.Family.CHROMIUM) {
        // Chromium keeps its crash database (settings.dat, dumps) in the user's own config folder
        // (~/.config/chromium/Crash Reports) whatever --user-data-dir says; this moves it into the
        // temporary profile, deleted with it.
        pb.environment().put("BREAKPAD_DUMP_LOCATION", profile.resolve("Crash Reports").toString());
      }
      Process p = pb.start();
      p.getOutputStream().close();
      return new LaunchedBrowser(browser, p, profile, log);
    } catch (IOException | RuntimeException e) {
      LaunchedBrowser.deleteTree(profile);
      throw e;
    }
  }

  /** The Chromium command line (tests read it). */
  static List<String> chromium(Browser b, Spec spec, Path profile) {
    List<String> cmd = new ArrayList<>();
    cmd.add(b.executable().toString());
    cmd.add("--user-data-dir=" + profile);
    cmd.add("--proxy-server=" + (spec.socks() ? "socks5://" : "http://") + ListenAddress.format(spec.proxy()));
    // Without this Chromium never proxies localhost and 127.0.0.1, which are worth watching too.
    cmd.add("--proxy-bypass-list=<-loopback>");
    cmd.add("--ignore-certificate-errors-spki-list=" + SpkiPin.of(spec.ca()));
    cmd.add("--no-first-run");
    cmd.add("--no-default-browser-check");
    cmd.add("--disable-sync");
    // Chromium's own update and telemetry traffic would otherwise fill the flow list.
    cmd.add("--disable-background-networking");
    cmd.add("--disable-component-update");
    if (spec.headless()) {
      cmd.add("--headless");
      cmd.add("--disable-gpu");
    }
    if (runsAsRoot()) {
      cmd.add("--no-sandbox"); // Chromium refuses to start as root with its sandbox
    }
    cmd.addAll(spec.extraArgs());
    cmd.add(spec.url() == null ? "about:blank" : spec.url());
    return cmd;
  }

  private static List<String> firefox(Browser b, Spec spec, Path profile) throws IOException {
    Files.writeString(profile.resolve("user.js"), userJs(spec), StandardCharsets.UTF_8);
    CaCertificate ca = CaCertificate.of(spec.ca(), spec.caPem());
    TrustResult trust = NssDatabase.of("firefox-profile", "Firefox profile", profile, true, ca,
        new ProcessCommandRunner()).install();
    if (!trust.success()) {
      throw new IOException("cannot make Firefox's profile trust Loupe's CA: " + trust.message());
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(b.executable().toString());
    cmd.add("--profile");
    cmd.add(profile.toString());
    cmd.add("--no-remote");
    cmd.add("--new-instance");
    if (spec.headless()) {
      cmd.add("--headless");
    }
    cmd.addAll(spec.extraArgs());
    cmd.add(spec.url() == null ? "about:blank" : spec.url());
    return cmd;
  }

  /** The profile's preferences (tests read them). */
  static String userJs(Spec spec) {
    String host = spec.proxy().getAddress().getHostAddress();
    int port = spec.proxy().getPort();
    Map<String, Object> prefs = new LinkedHashMap<>();
    prefs.put("network.proxy.type", 1); // manual
    if (spec.socks()) {
      prefs.put("network.proxy.socks", host);
      prefs.put("network.proxy.socks_port", port);
      prefs.put("network.proxy.socks_version", 5);
      prefs.put("network.proxy.socks_remote_dns", true);
    } else {
      prefs.put("network.proxy.http", host);
      prefs.put("network.proxy.http_port", port);
      prefs.put("network.proxy.ssl", host);
      prefs.put("network.proxy.ssl_port", port);
    }
    prefs.put("network.proxy.share_proxy_settings", false);
    prefs.put("network.proxy.no_proxies_on", "");
    prefs.put("network.proxy.allow_hijacking_localhost", true); // proxy localhost too
    prefs.put("browser.shell.checkDefaultBrowser", false);
    prefs.put("browser.startup.homepage_override.mstone", "ignore");
    prefs.put("browser.aboutwelcome.enabled", false);
    prefs.put("startup.homepage_welcome_url", "");
    prefs.put("startup.homepage_welcome_url.additional", "");
    prefs.put("datareporting.policy.dataSubmissionEnabled", false);
    prefs.put("datareporting.healthreport.uploadEnabled", false);
    prefs.put("toolkit.telemetry.reportingpolicy.firstRun", false);
    prefs.put("app.normandy.enabled", false);
    prefs.put("app.update.auto", false);
    prefs.put("extensions.update.enabled", false);
    prefs.put("network.captive-portal-service.enabled", false);
    prefs.put("network.connectivity-service.enabled", false);
    prefs.put("browser.tabs.warnOnClose", false);
    // Firefox's own background traffic (studies, push, region, plugin updates, sponsored tiles)
    // would fill the flow list with requests the user did not make.
    prefs.put("app.shield.optoutstudies.enabled", false);
    prefs.put("messaging-system.rsexperimentloader.enabled", false);
    prefs.put("dom.push.connection.enabled", false);
    prefs.put("browser.region.update.enabled", false);
    prefs.put("browser.region.network.url", "");
    prefs.put("media.gmp-manager.url", "");
    prefs.put("toolkit.telemetry.unified", false);
    prefs.put("datareporting.usage.uploadEnabled", false);
    prefs.put("browser.newtabpage.enabled", false);
    prefs.put("browser.newtabpage.activity-stream.feeds.topsites", false);
    prefs.put("browser.newtabpage.activity-stream.showSponsoredTopSites", false);
    prefs.put("extensions.getAddons.cache.enabled", false);
    prefs.putAll(spec.extraPrefs());
    StringBuilder b = new StringBuilder("// Written by Loupe for this temporary profile; deleted when Firefox exits.\n");
    prefs.forEach((k, v) -> b.append("user_pref(\"").append(k).append("\", ").append(value(v)).append(");\n"));
    return b.toString();
  }

  private static String value(Object v) {
    if (v instanceof String s) {
      return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
    return String.valueOf(v);
  }

  private static boolean runsAsRoot() {
    return !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win")
        && "root".equals(System.getProperty("user.name"));
  }
}
