package dev.loupe.engine.api;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;

/**
 * Proxy authentication: the user name and password a client must present — HTTP {@code Basic} in
 * {@code Proxy-Authorization} (a {@code 407} otherwise), or SOCKS5 username/password
 * (<a href="https://datatracker.ietf.org/doc/html/rfc1929">RFC 1929</a>).
 *
 * <p>Immutable. The password is never printed by {@link #toString()}.
 *
 * @param username       at most 255 bytes of UTF-8 (SOCKS5's limit), no colon (Basic's separator),
 *                       no control characters
 * @param password       at most 255 bytes of UTF-8, no control characters
 * @param loopbackExempt true: clients on this machine (a loopback address) are not asked, only
 *                       remote ones; false: every client is
 */
public record ProxyAuth(String username, String password, boolean loopbackExempt) {
  /** The realm in {@code Proxy-Authenticate}. */
  public static final String REALM = "Loupe";

  public ProxyAuth {
    Objects.requireNonNull(username, "username");
    Objects.requireNonNull(password, "password");
    if (username.isEmpty()) {
      throw new IllegalArgumentException("the proxy user name is empty");
    }
    if (username.indexOf(':') >= 0) {
      throw new IllegalArgumentException("the proxy user name may not contain ':'");
    }
    if (password.isEmpty()) {
      throw new IllegalArgumentException("the proxy password is empty");
    }
    for (String s : new String[] {username, password}) {
      if (s.getBytes(StandardCharsets.UTF_8).length > 255) {
        throw new IllegalArgumentException("proxy user names and passwords are at most 255 bytes");
      }
      if (s.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
        throw new IllegalArgumentException("proxy user names and passwords may not contain control characters");
      }
    }
  }

  /**
   * Parses {@code USER:PASS} (the password may contain colons).
   *
   * @throws IllegalArgumentException with a one-line reason
   */
  public static ProxyAuth parse(String userColonPassword, boolean loopbackExempt) {
    int colon = userColonPassword.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("expected USER:PASSWORD");
    }
    return new ProxyAuth(userColonPassword.substring(0, colon), userColonPassword.substring(colon + 1),
        loopbackExempt);
  }

  /** The value a client sends: {@code Basic base64(user:password)}. */
  public String basicCredentials() {
    return "Basic " + Base64.getEncoder().encodeToString(
        (username + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /** The same settings with {@code loopbackExempt} changed. */
  public ProxyAuth withLoopbackExempt(boolean exempt) {
    return new ProxyAuth(username, password, exempt);
  }

  @Override
  public String toString() {
    return "ProxyAuth[" + username + ", password hidden" + (loopbackExempt ? ", loopback exempt" : "") + "]";
  }
}
