package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.ProxyAuth;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Locale;

/**
 * Checks proxy credentials: HTTP {@code Proxy-Authorization: Basic} and SOCKS5 username/password
 * (<a href="https://datatracker.ietf.org/doc/html/rfc1929">RFC 1929</a>) against the configured
 * {@link ProxyAuth}. Comparisons take the same time whatever the input, and nothing here sleeps or
 * blocks: a client guessing passwords costs the event loop one comparison per attempt and slows
 * no one else down.
 *
 * <p>Stateless and thread-safe.
 */
final class ProxyAuthenticator {
  /**
   * The verdict on one attempt.
   *
   * @param reason   null when the credentials are right, else what was wrong
   * @param username the user name offered, or null
   */
  record Verdict(String reason, String username) {
    boolean ok() {
      return reason == null;
    }
  }

  private ProxyAuthenticator() {}

  /**
   * Whether a client on {@code ch} must authenticate: credentials are configured, the listener is
   * not one Loupe opened for a client it launched itself, and the client is remote or loopback
   * clients are not exempt.
   */
  static boolean required(EngineContext engine, Channel ch, boolean launchedClient) {
    ProxyAuth auth = engine.config().proxyAuth();
    if (auth == null || launchedClient) {
      return false;
    }
    if (!auth.loopbackExempt()) {
      return true;
    }
    return !(ch.remoteAddress() instanceof InetSocketAddress a) || a.getAddress() == null
        || !a.getAddress().isLoopbackAddress();
  }

  /** Checks a {@code Proxy-Authorization} header value (null when the request had none). */
  static Verdict basic(ProxyAuth auth, String header) {
    if (header == null || header.isBlank()) {
      return new Verdict("no credentials", null);
    }
    String h = header.trim();
    if (h.length() < 6 || !h.substring(0, 6).toLowerCase(Locale.ROOT).equals("basic ")) {
      return new Verdict("unsupported authentication scheme (Basic expected)", null);
    }
    byte[] decoded;
    try {
      decoded = Base64.getDecoder().decode(h.substring(6).trim());
    } catch (IllegalArgumentException e) {
      return new Verdict("malformed Basic credentials", null);
    }
    String pair = new String(decoded, StandardCharsets.UTF_8);
    int colon = pair.indexOf(':');
    if (colon < 0) {
      return new Verdict("malformed Basic credentials", null);
    }
    String user = pair.substring(0, colon);
    boolean ok = matches(auth, user.getBytes(StandardCharsets.UTF_8),
        pair.substring(colon + 1).getBytes(StandardCharsets.UTF_8));
    return new Verdict(ok ? null : "wrong user name or password", printable(user));
  }

  /** Checks SOCKS5 username/password bytes. */
  static Verdict socks(ProxyAuth auth, byte[] user, byte[] password) {
    String name = printable(new String(user, StandardCharsets.UTF_8));
    return new Verdict(matches(auth, user, password) ? null : "wrong user name or password", name);
  }

  private static boolean matches(ProxyAuth auth, byte[] user, byte[] password) {
    // Both compared in full, so the time taken says nothing about which one was wrong.
    boolean u = MessageDigest.isEqual(user, auth.username().getBytes(StandardCharsets.UTF_8));
    boolean p = MessageDigest.isEqual(password, auth.password().getBytes(StandardCharsets.UTF_8));
    return u & p;
  }

  /** A user name as logged: at most 64 characters, control characters replaced. */
  private static String printable(String s) {
    String cut = s.length() > 64 ? s.substring(0, 64) + "…" : s;
    StringBuilder b = new StringBuilder(cut.length());
    cut.codePoints().forEach(c -> b.appendCodePoint(c < 0x20 || c == 0x7f ? '?' : c));
    return b.toString();
  }
}
