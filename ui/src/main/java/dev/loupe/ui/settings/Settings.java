package dev.loupe.ui.settings;

import java.util.List;
import java.util.Objects;

/**
 * What the user sets in the Settings dialog, persisted as {@code settings.json} in Loupe's
 * configuration directory. Command-line options given explicitly win over these.
 *
 * @param listen            where the proxy listens, {@code HOST:PORT}
 * @param ignoreHosts       regexes of hosts relayed as opaque tunnels (not intercepted)
 * @param upstreamProxy     an HTTP proxy Loupe goes through ({@code http://host:port}), or empty
 * @param bodyCap           bytes of each body kept in memory, e.g. {@code 1MiB}
 * @param verifyUpstreamTls verify origin certificates (off is dangerous; the UI warns)
 * @param theme             the window's colours
 * @param pauseTimeoutSeconds how long a flow may wait at a breakpoint before it is resumed
 *                          unchanged; 0 = forever
 */
public record Settings(String listen, List<String> ignoreHosts, String upstreamProxy, String bodyCap,
    boolean verifyUpstreamTls, Theme theme, int pauseTimeoutSeconds) {
  /** The window's colours. */
  public enum Theme { LIGHT, DARK }

  /** Loupe's defaults: loopback 8080, nothing ignored, 1 MiB bodies, verified TLS, light. */
  public static final Settings DEFAULTS = new Settings("127.0.0.1:8080", List.of(), "", "1MiB", true, Theme.LIGHT, 0);

  /** The most a pause timeout may be: one day. */
  public static final int MAX_PAUSE_TIMEOUT_SECONDS = 86_400;

  public Settings {
    Objects.requireNonNull(listen, "listen");
    ignoreHosts = List.copyOf(ignoreHosts);
    upstreamProxy = upstreamProxy == null ? "" : upstreamProxy.trim();
    Objects.requireNonNull(bodyCap, "bodyCap");
    Objects.requireNonNull(theme, "theme");
    if (pauseTimeoutSeconds < 0 || pauseTimeoutSeconds > MAX_PAUSE_TIMEOUT_SECONDS) {
      throw new IllegalArgumentException("pause timeout must be 0.." + MAX_PAUSE_TIMEOUT_SECONDS + " seconds");
    }
  }

  /** Without a pause timeout (flows wait at breakpoints until released). */
  public Settings(String listen, List<String> ignoreHosts, String upstreamProxy, String bodyCap,
      boolean verifyUpstreamTls, Theme theme) {
    this(listen, ignoreHosts, upstreamProxy, bodyCap, verifyUpstreamTls, theme, 0);
  }

  public Settings withTheme(Theme t) {
    return new Settings(listen, ignoreHosts, upstreamProxy, bodyCap, verifyUpstreamTls, t, pauseTimeoutSeconds);
  }

  public Settings withListen(String l) {
    return new Settings(l, ignoreHosts, upstreamProxy, bodyCap, verifyUpstreamTls, theme, pauseTimeoutSeconds);
  }
}
