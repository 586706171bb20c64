package dev.loupe.engine.internal.protocol.http1;

import io.netty.util.NetUtil;
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
   *
   * <p>The authority is checked strictly (it decides where Loupe connects and what the flow says):
   * no userinfo, a reg-name of unreserved characters, an IPv4 literal or a bracketed IPv6 literal,
   * and a port in 1..65535. The path and query are kept byte for byte: real clients send characters
   * RFC 3986 does not list there ({@code ?a[]=1}, {@code |}, {@code ^}, {@code {}}), and origins
   * accept them, so refusing or re-encoding them would break working traffic. A fragment (which a
   * client should never send) is dropped, as origins never see one.
   */
  public static Absolute parseAbsolute(String raw) {
    String uri = normalize(raw);
    int sep = uri.indexOf("://");
    if (sep <= 0) {
      throw new IllegalArgumentException("invalid request target (not an absolute URL): " + printable(uri));
    }
    String scheme = uri.substring(0, sep).toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("unsupported scheme in request target: " + printable(uri));
    }
    int authStart = sep + 3;
    int authEnd = authStart;
    while (authEnd < uri.length() && "/?#".indexOf(uri.charAt(authEnd)) < 0) {
      authEnd++;
    }
    String authority = uri.substring(authStart, authEnd);
    if (authority.indexOf('@') >= 0) {
      // RFC 9110 §4.2.4: userinfo is not allowed in http(s) URIs; it would also hide the real host.
      throw new IllegalArgumentException("user information in the request target: " + printable(uri));
    }
    if (authority.isEmpty()) {
      throw new IllegalArgumentException("no host in request target: " + printable(uri));
    }
    Authority a = authority(authority, scheme.equals("https") ? 443 : 80, "request target");
    String rest = uri.substring(authEnd);
    int hash = rest.indexOf('#');
    if (hash >= 0) {
      rest = rest.substring(0, hash);
    }
    String target = rest.isEmpty() ? "/" : rest.charAt(0) == '?' ? "/" + rest : rest;
    return new Absolute(scheme, a.host(), a.port(), target);
  }

  /** Parses a CONNECT request's authority-form target ({@code host:port}, {@code [v6]:port}). */
  public static Authority parseConnect(String authority) {
    int colon = authority.lastIndexOf(':');
    if (colon <= 0 || colon == authority.length() - 1 || authority.endsWith("]")) {
      throw new IllegalArgumentException("CONNECT target must be host:port, got " + printable(authority));
    }
    return authority(authority, -1, "CONNECT target");
  }

  /**
   * {@code host[:port]} with the host a reg-name or IP literal (IPv6 in brackets) and the port
   * 1..65535; {@code defaultPort} when the port is left out or empty ({@code -1}: it is required).
   */
  private static Authority authority(String authority, int defaultPort, String what) {
    String host;
    String portText;
    boolean bracketed = authority.startsWith("[");
    if (bracketed) {
      int close = authority.indexOf(']');
      String after = close < 0 ? "" : authority.substring(close + 1);
      if (close < 0 || !(after.isEmpty() || after.startsWith(":"))) {
        throw new IllegalArgumentException(what + " has an invalid host: " + printable(authority));
      }
      host = authority.substring(1, close);
      portText = after.isEmpty() ? null : after.substring(1);
      // No zone ids ("fe80::1%eth0"): they name an interface of the client's machine (RFC 6874 §1).
      if (host.indexOf('%') >= 0 || !NetUtil.isValidIpV6Address(host)) {
        throw new IllegalArgumentException(what + " has an invalid IPv6 address: " + printable(authority));
      }
    } else {
      int colon = authority.lastIndexOf(':');
      host = colon < 0 ? authority : authority.substring(0, colon);
      portText = colon < 0 ? null : authority.substring(colon + 1);
      if (host.indexOf(':') >= 0) {
        throw new IllegalArgumentException(what + " has an IPv6 address without brackets: " + printable(authority));
      }
      if (host.isEmpty() || !validHost(host)) {
        throw new IllegalArgumentException(what + " has an invalid host: " + printable(authority));
      }
    }
    int port = defaultPort;
    if (portText != null && !(portText.isEmpty() && defaultPort > 0)) {
      port = -1;
      if (!portText.isEmpty() && portText.length() <= 5 && portText.chars().allMatch(c -> c >= '0' && c <= '9')) {
        port = Integer.parseInt(portText);
      }
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(what + " has an invalid port: " + printable(authority));
    }
    return new Authority(host.toLowerCase(Locale.ROOT), port);
  }

  /**
   * A reg-name or IPv4 literal: unreserved characters only (no percent escapes: no DNS name has
   * them) in non-empty labels.
   */
  private static boolean validHost(String host) {
    // Labels are not empty ("a..b", ".a" are no names); one trailing dot (a fully qualified name) is.
    if (host.startsWith(".") || host.contains("..")) {
      return false;
    }
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~';
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
