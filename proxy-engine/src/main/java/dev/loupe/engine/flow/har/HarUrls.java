package dev.loupe.engine.flow.har;

import dev.loupe.engine.flow.RequestHead;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** URL, query string and IP address text for HAR fields. Stateless. */
final class HarUrls {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private HarUrls() {}

  /** One {@code name=value} pair of a query string or a form body, URL-decoded. */
  record Param(String name, String value) {}

  /**
   * The absolute URL of {@code request} as a valid URI (HAR {@code request.url}). Characters a URI
   * cannot hold (spaces, {@code |}, {@code {}}, non-ASCII, a stray {@code %}) are percent-encoded
   * as browsers do; an already valid URL is returned unchanged.
   */
  static String absolute(RequestHead request) {
    String target = request.target();
    String base = request.scheme() + "://" + request.authority();
    String url;
    if (target.startsWith("/")) {
      url = base + target;
    } else if ("*".equals(target) || target.isEmpty()) {
      url = base + "/"; // asterisk-form (OPTIONS *) names the server itself
    } else if (target.regionMatches(true, 0, "http://", 0, 7) || target.regionMatches(true, 0, "https://", 0, 8)) {
      url = target;
    } else {
      url = base + "/" + target;
    }
    return escape(url);
  }

  /** {@code https://host:port} for a tunnel to {@code host}:{@code port}; the port is always given. */
  static String tunnel(String host, int port) {
    String h = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    return escape("https://" + h + ":" + port);
  }

  /** Percent-encodes what RFC 3986 does not allow; keeps valid escapes and the IPv6 brackets of the authority. */
  static String escape(String url) {
    int schemeEnd = url.indexOf("://");
    int authorityEnd = url.length();
    if (schemeEnd >= 0) {
      for (int i = schemeEnd + 3; i < url.length(); i++) {
        char c = url.charAt(i);
        if (c == '/' || c == '?' || c == '#') {
          authorityEnd = i;
          break;
        }
      }
    }
    StringBuilder sb = null;
    boolean seenFragment = false;
    for (int i = 0; i < url.length(); ) {
      int cp = url.codePointAt(i);
      int n = Character.charCount(cp);
      boolean keep;
      if (cp == '%') {
        keep = i + 2 < url.length() && isHex(url.charAt(i + 1)) && isHex(url.charAt(i + 2));
      } else if (cp == '[' || cp == ']') {
        keep = schemeEnd >= 0 && i > schemeEnd && i < authorityEnd;
      } else if (cp == '#') {
        keep = !seenFragment && i >= authorityEnd;
        seenFragment = true;
      } else {
        keep = isUriChar(cp);
      }
      if (!keep && sb == null) {
        sb = new StringBuilder(url.length() + 16).append(url, 0, i);
      }
      if (sb != null) {
        if (keep) {
          sb.appendCodePoint(cp);
        } else {
          for (byte b : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8)) {
            sb.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
          }
        }
      }
      i += n;
    }
    return sb == null ? url : sb.toString();
  }

  private static boolean isUriChar(int c) {
    if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
      return true;
    }
    // unreserved, gen-delims (less '#', '[', ']' handled above) and sub-delims of RFC 3986
    return "-._~:/?@!$&'()*+,;=".indexOf(c) >= 0;
  }

  private static boolean isHex(char c) {
    return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
  }

  /**
   * Splits {@code a=1&b=x+y} into URL-decoded pairs ({@code +} is a space, as in HTML forms). A
   * malformed escape keeps that part as it was rather than failing the export.
   */
  static List<Param> parseParams(String raw, Charset charset) {
    List<Param> out = new ArrayList<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    int start = 0;
    while (start <= raw.length()) {
      int amp = raw.indexOf('&', start);
      int end = amp < 0 ? raw.length() : amp;
      if (end > start) {
        String pair = raw.substring(start, end);
        int eq = pair.indexOf('=');
        String name = eq < 0 ? pair : pair.substring(0, eq);
        String value = eq < 0 ? "" : pair.substring(eq + 1);
        out.add(new Param(decode(name, charset), decode(value, charset)));
      }
      if (amp < 0) {
        break;
      }
      start = amp + 1;
    }
    return out;
  }

  private static String decode(String s, Charset charset) {
    try {
      return URLDecoder.decode(s, charset);
    } catch (IllegalArgumentException malformed) {
      return s;
    }
  }

  /**
   * The textual form of {@code address} for HAR {@code serverIPAddress}: dotted IPv4, or IPv6 in
   * the RFC 5952 canonical form ({@code ::1}, not {@code 0:0:0:0:0:0:0:1}), never with brackets
   * or a zone id. See <a href="https://datatracker.ietf.org/doc/html/rfc5952#section-4">RFC 5952 §4</a>.
   */
  static String ipLiteral(InetAddress address) {
    if (!(address instanceof Inet6Address)) {
      return address.getHostAddress();
    }
    byte[] b = address.getAddress();
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((b[2 * i] & 0xFF) << 8) | (b[2 * i + 1] & 0xFF);
    }
    int bestStart = -1;
    int bestLen = 0;
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    if (bestLen < 2) {
      bestStart = -1; // a single zero group is not shortened (RFC 5952 §4.2.2)
    }
    StringBuilder sb = new StringBuilder(39);
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        sb.append("::");
        i += bestLen - 1;
        continue;
      }
      if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
        sb.append(':');
      }
      sb.append(Integer.toHexString(groups[i]));
    }
    return sb.toString();
  }
}
