package dev.loupe.engine.internal.protocol.http1;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * Request targets (RFC 9112 §3.2) and CONNECT authorities as they arrive on the wire, parsed
 * without I/O. Pure functions; every failure is an {@link IllegalArgumentException} whose message
 * is the one-line reason a 400 names.
 *
 * <h3>Bytes, not characters</h3>
 * Netty's HTTP/1.1 decoder (and its HTTP/2 and HTTP/3 adapters) turn each octet of the request line
 * into one {@code char} (ISO-8859-1). A target may only hold visible US-ASCII (RFC 9112 §3.2,
 * RFC 3986 §2), but careless clients send raw UTF-8 (curl with a non-ASCII URL, scripts). Re-encoding
 * those chars as some other charset would change the bytes the origin sees; so octets ≥ 0x80 are
 * percent-encoded as they arrived (the request means the same to any origin that decodes
 * percent-encoding), and control characters, space and DEL are refused.
 */
public final class RequestTargets {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private RequestTargets() {}

  /** Where an absolute-form request goes: lower-cased scheme and host, the port, and the origin-form target. */
  public record Absolute(String scheme, String host, int port, String target) {}

  /** A CONNECT target's host (lower-cased, IPv6 without brackets) and port. */
  public record Authority(String host, int port) {}

  /**
   * The target with every octet ≥ 0x80 percent-encoded as it arrived; {@code raw} itself when it is
   * already visible ASCII (the common case: no copy).
   *
   * @throws IllegalArgumentException for control characters, space, DEL, or a char that is not an octet
   */
  public static String normalize(String raw) {
    int i = 0;
    int n = raw.length();
    while (i < n) {
      char c = raw.charAt(i);
      if (c <= 0x20 || c >= 0x7F) {
        break;
      }
      i++;
    }
    if (i == n) {
      return raw;
    }
    StringBuilder out = new StringBuilder(n + 16).append(raw, 0, i);
    for (; i < n; i++) {
      char c = raw.charAt(i);
      if (c < 0x20 || c == 0x7F) {
        throw new IllegalArgumentException("control character 0x" + Integer.toHexString(c)
            + " in the request target");
      }
      if (c == 0x20) {
        throw new IllegalArgumentException("space in the request target");
      }
      if (c > 0xFF) {
        throw new IllegalArgumentException("a character that is not an octet (U+"
            + Integer.toHexString(c).toUpperCase(Locale.ROOT) + ") in the request target");
      }
      if (c >= 0x80) {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** Whether {@code target} is origin-form ({@code /path?query}) or asterisk-form ({@code *}). */
  public static boolean isOriginForm(String target) {
    return target.startsWith("/") || target.equals("*");
  }

  /**
   * Parses an absolute-form target ({@code http://host[:port]/path?query}); {@code raw} is
   * {@linkplain #normalize normalized} first. Only {@code http} and {@code https} are accepted.
   */
  public static Absolute parseAbsolute(String raw) {
    String uri = normalize(raw);
    URI u;
    try {
      u = new URI(uri);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("invalid request target: " + e.getMessage());
    }
    String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("unsupported scheme in request target: " + uri);
    }
    if (u.getRawUserInfo() != null) {
      // RFC 9110 §4.2.4: userinfo is not allowed in http(s) URIs; it would also hide the real host.
      throw new IllegalArgumentException("user information in the request target: " + uri);
    }
    String host = u.getHost();
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("no host in request target: " + uri);
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = u.getPort() > 0 ? u.getPort() : scheme.equals("https") ? 443 : 80;
    if (port > 65535) {
      throw new IllegalArgumentException("port out of range in request target: " + uri);
    }
    String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
    String target = u.getRawQuery() == null ? path : path + "?" + u.getRawQuery();
    return new Absolute(scheme, host.toLowerCase(Locale.ROOT), port, target);
  }

  /** Parses a CONNECT request's authority-form target ({@code host:port}, {@code [v6]:port}). */
  public static Authority parseConnect(String authority) {
    int colon = authority.lastIndexOf(':');
    if (colon <= 0 || colon == authority.length() - 1) {
      throw new IllegalArgumentException("CONNECT target must be host:port, got " + printable(authority));
    }
    String host = authority.substring(0, colon);
    boolean bracketed = host.startsWith("[") && host.endsWith("]");
    if (bracketed) {
      host = host.substring(1, host.length() - 1);
    } else if (host.indexOf(':') >= 0) {
      throw new IllegalArgumentException("CONNECT target has an IPv6 address without brackets: "
          + printable(authority));
    }
    String portText = authority.substring(colon + 1);
    int port = -1;
    if (portText.length() <= 5 && portText.chars().allMatch(c -> c >= '0' && c <= '9')) {
      port = Integer.parseInt(portText);
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("CONNECT target has an invalid port: " + printable(authority));
    }
    if (host.isEmpty() || !validHost(host, bracketed)) {
      throw new IllegalArgumentException("CONNECT target has an invalid host: " + printable(authority));
    }
    return new Authority(host.toLowerCase(Locale.ROOT), port);
  }

  /** A reg-name, IPv4 literal or (bracketed) IPv6 literal: no spaces, controls, '@', '/' or non-ASCII. */
  private static boolean validHost(String host, boolean ipv6) {
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~' || c == '%' || (ipv6 && c == ':');
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** {@code s} with non-printable octets escaped, cut to 200 chars, for error messages. */
  static String printable(String s) {
    StringBuilder b = new StringBuilder(Math.min(s.length(), 200));
    for (int i = 0; i < s.length() && b.length() < 200; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c >= 0x7F) {
        b.append("\\x").append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
