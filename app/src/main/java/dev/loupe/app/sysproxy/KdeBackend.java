package dev.loupe.app.sysproxy;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * KDE Plasma 5 and 6: the {@code [Proxy Settings]} group of {@code kioslaverc}, through {@code
 * kreadconfig5/6} and {@code kwriteconfig5/6}, then a D-Bus signal telling running KIO workers to
 * reparse it (what the proxy settings module does). Untested on a real KDE session.
 *
 * <p>Saved keys are the kioslaverc key names; a key that is unset (kreadconfig prints nothing) is
 * saved as null and deleted on restore. Values as KDE writes them: {@code ProxyType} 0 none, 1
 * manual; {@code httpProxy=http://host port} (space before the port); {@code NoProxyFor}
 * comma-separated; {@code ReversedException} true inverts NoProxyFor, so it is forced to false.
 */
final class KdeBackend implements ProxyBackend {
  static final String FILE = "kioslaverc";
  static final String GROUP = "Proxy Settings";
  static final String PROXY_TYPE = "ProxyType";
  static final String HTTP = "httpProxy";
  static final String HTTPS = "httpsProxy";
  static final String NO_PROXY_FOR = "NoProxyFor";
  static final String REVERSED = "ReversedException";
  /** In the order {@link #apply} writes them: the type (manual) last. */
  static final List<String> KEYS = List.of(HTTP, HTTPS, NO_PROXY_FOR, REVERSED, PROXY_TYPE);

  private final CommandRunner runner;
  private final int version;

  /** @param version 5 or 6: which kreadconfig/kwriteconfig to run */
  KdeBackend(CommandRunner runner, int version) {
    this.runner = requireNonNull(runner, "runner");
    if (version != 5 && version != 6) {
      throw new IllegalArgumentException("KDE Frameworks version 5 or 6, not " + version);
    }
    this.version = version;
  }

  @Override
  public String id() {
    return "kde" + version;
  }

  @Override
  public String displayName() {
    return "KDE (kioslaverc, kwriteconfig" + version + ")";
  }

  @Override
  public Map<String, String> capture() throws SystemProxyException {
    Map<String, String> saved = new LinkedHashMap<>();
    for (String k : KEYS) {
      String v = runner.check(List.of("kreadconfig" + version, "--file", FILE, "--group", GROUP, "--key", k)).stdout();
      v = v.endsWith("\r\n") ? v.substring(0, v.length() - 2) : v.endsWith("\n") ? v.substring(0, v.length() - 1) : v;
      saved.put(k, v.isEmpty() ? null : v);
    }
    return saved;
  }

  @Override
  public void apply(ProxyTarget target, Map<String, String> previous) throws SystemProxyException {
    String proxy = "http://" + target.urlHost() + " " + target.port();
    List<String> bypass = ProxyTarget.merge(ProxyTarget.LOCAL_BYPASS, splitList(previous.get(NO_PROXY_FOR)));
    // With ReversedException=true the list would name the only hosts to proxy: keep the previous
    // list as ours only when it was a real exception list.
    if ("true".equalsIgnoreCase(String.valueOf(previous.get(REVERSED)))) {
      bypass = new ArrayList<>(ProxyTarget.LOCAL_BYPASS);
    }
    write(HTTP, proxy);
    write(HTTPS, proxy);
    write(NO_PROXY_FOR, String.join(",", bypass));
    write(REVERSED, "false");
    write(PROXY_TYPE, "1");
    reparse(true);
  }

  @Override
  public void restore(Map<String, String> saved) throws SystemProxyException {
    if (saved.containsKey(PROXY_TYPE)) {
      write(PROXY_TYPE, saved.get(PROXY_TYPE));
    }
    for (String k : KEYS) {
      if (!k.equals(PROXY_TYPE) && saved.containsKey(k)) {
        write(k, saved.get(k));
      }
    }
    // Best effort: the file is what counts (new KIO workers read it); a restore must not get stuck
    // because no session bus is reachable.
    reparse(false);
  }

  static List<String> splitList(String commaSeparated) {
    if (commaSeparated == null || commaSeparated.isBlank()) {
      return List.of();
    }
    return Arrays.stream(commaSeparated.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
  }

  private void write(String key, String value) throws SystemProxyException {
    List<String> argv = new ArrayList<>(List.of("kwriteconfig" + version, "--file", FILE, "--group", GROUP, "--key", key));
    if (value == null) {
      argv.add("--delete");
    } else {
      argv.add(value);
    }
    runner.check(argv);
  }

  private void reparse(boolean required) throws SystemProxyException {
    List<String> argv = List.of("dbus-send", "--session", "--type=signal", "/KIO/Scheduler",
        "org.kde.KIO.Scheduler.reparseSlaveConfiguration", "string:");
    if (required) {
      runner.check(argv);
    } else {
      try {
        runner.run(argv);
      } catch (SystemProxyException e) {
        // no dbus-send: running KIO workers pick the restored file up when they restart
      }
    }
  }
}
