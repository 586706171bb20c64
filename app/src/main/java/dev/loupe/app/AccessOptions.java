package dev.loupe.app;

import dev.loupe.app.connect.RemoteAccessFile;
import dev.loupe.engine.api.AccessLog;
import dev.loupe.engine.api.ListenAddress;
import dev.loupe.engine.api.ProxyAuth;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who may use the proxy, from {@code --allow-remote}, {@code --proxy-auth} and {@code --socks}
 * (and, for the window, remote access as the user left it): the credentials clients must present
 * and the SOCKS5-only listener. Checked before anything starts; a bad value is a usage error.
 *
 * @param auth    the credentials, or null when no client is asked
 * @param socks   the SOCKS5-only listener's address, or null
 * @param message what to print about authentication, or null
 */
record AccessOptions(ProxyAuth auth, InetSocketAddress socks, String message) {
  /**
   * The window remembers remote access ({@code remote-access.json}): when it is on and
   * {@code --listen} was not given, Loupe listens on every interface, on the configured port.
   */
  static void applySavedRemoteAccess(LoupeCommand cmd, Path dir, boolean listenGiven, PrintStream out) {
    if (listenGiven) {
      return;
    }
    try {
      RemoteAccessFile remote = RemoteAccessFile.load(dir);
      if (remote.enabled()) {
        InetSocketAddress configured = ListenAddress.parse(cmd.listen);
        cmd.listen = "0.0.0.0:" + configured.getPort();
        cmd.allowRemote = true;
      }
    } catch (IOException | IllegalArgumentException e) {
      out.println("Loupe: " + e.getMessage() + "; remote access stays off.");
    }
  }

  static AccessOptions resolve(String proxyAuthOption, String socksOption, boolean allowRemote,
      InetSocketAddress listen, Path dir) {
    InetSocketAddress socks = null;
    if (socksOption != null) {
      try {
        socks = ListenAddress.parse(socksOption);
      } catch (IllegalArgumentException e) {
        throw new LoupeCommand.UsageError("--socks: " + e.getMessage());
      }
      if (!socks.getAddress().isLoopbackAddress() && !allowRemote) {
        throw new LoupeCommand.UsageError("--socks " + socksOption + " is not a loopback address; add --allow-remote"
            + " to listen on it");
      }
    }
    boolean remote = !listen.getAddress().isLoopbackAddress() || (socks != null && !socks.getAddress().isLoopbackAddress());
    if (proxyAuthOption != null) {
      if (proxyAuthOption.equalsIgnoreCase("off")) {
        return new AccessOptions(null, socks, remote
            ? "WARNING: --proxy-auth off: anyone who can reach the proxy can use it without a password." : null);
      }
      ProxyAuth auth;
      try {
        auth = ProxyAuth.parse(proxyAuthOption, false);
      } catch (IllegalArgumentException e) {
        throw new LoupeCommand.UsageError("--proxy-auth: " + e.getMessage() + " (or 'off')");
      }
      return new AccessOptions(auth, socks, "Proxy authentication: every client must log in as '" + auth.username()
          + "'.");
    }
    if (!remote) {
      return new AccessOptions(null, socks, null);
    }
    RemoteAccessFile saved;
    try {
      saved = RemoteAccessFile.load(dir);
    } catch (IOException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    if (!saved.requireAuth()) {
      return new AccessOptions(null, socks,
          "WARNING: proxy authentication is switched off (remote access settings): anyone who can reach the proxy can"
              + " use it.");
    }
    return new AccessOptions(saved.proxyAuth(), socks, "Proxy authentication for remote clients: user '"
        + saved.username() + "', password '" + saved.password() + "' (" + dir.resolve(RemoteAccessFile.FILE_NAME)
        + "; clients on this machine need none).");
  }

  /**
   * Prints each refused client to {@code out}, at most one line per client address a second (a
   * client guessing passwords does not flood the terminal); the lines left out are counted in the next.
   */
  static AutoCloseable printRefusals(AccessLog log, PrintStream out) {
    DateTimeFormatter time = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");
    Map<InetAddress, long[]> last = new ConcurrentHashMap<>(); // [last printed nanos, suppressed]
    return log.subscribe(r -> {
      InetAddress who = r.client() == null ? null : r.client().getAddress();
      long now = System.nanoTime();
      long[] state = who == null ? new long[2] : last.computeIfAbsent(who, k -> new long[] {now - 2_000_000_000L, 0});
      synchronized (state) {
        if (now - state[0] < 1_000_000_000L) {
          state[1]++;
          return;
        }
        String more = state[1] > 0 ? " (+" + state[1] + " more from this address)" : "";
        state[0] = now;
        state[1] = 0;
        out.println(time.format(LocalTime.now()) + " REFUSED " + r + more);
      }
    });
  }
}
