package dev.loupe.ca;

import static java.util.Objects.requireNonNull;

import java.net.IDN;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;

/**
 * A host a leaf is minted for: a DNS name or an IP literal, normalised.
 *
 * <p>{@link #normalize(String)} is the cheap cache key computed on every lookup; {@link
 * #parse(String)} classifies and validates a normalised key, only when a leaf is actually minted.
 * Neither ever does a DNS lookup. Immutable.
 */
final class HostName {
  /** RFC 5280 upper bound for a commonName (ub-common-name). */
  static final int MAX_COMMON_NAME = 64;

  private final String name;
  /** 4 or 16 bytes for an IP literal, null for a DNS name. */
  private final byte[] address;

  private HostName(String name, byte[] address) {
    this.name = name;
    this.address = address;
  }

  /**
   * The cache key for {@code host}: lowercase, ASCII (IDNs converted to punycode), IPv6 brackets
   * and zone id stripped, one trailing dot removed. Allocation-free for the common case of a
   * lowercase ASCII name.
   *
   * @throws IllegalArgumentException if {@code host} is empty or not convertible to ASCII
   */
  static String normalize(String host) {
    requireNonNull(host, "host");
    String h = host;
    int length = h.length();
    if (length > 1 && h.charAt(0) == '[' && h.charAt(length - 1) == ']') {
      h = h.substring(1, length - 1);
    }
    if (h.indexOf(':') >= 0) {
      int zone = h.indexOf('%');
      if (zone >= 0) {
        h = h.substring(0, zone);
      }
    } else if (h.endsWith(".") && h.length() > 1) {
      h = h.substring(0, h.length() - 1);
    }
    if (!isAscii(h)) {
      try {
        h = IDN.toASCII(h, IDN.ALLOW_UNASSIGNED);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Not a valid host name: " + host, e);
      }
    }
    h = h.toLowerCase(Locale.ROOT); // returns h itself when already lowercase
    if (h.isEmpty()) {
      throw new IllegalArgumentException("Empty host name: '" + host + "'");
    }
    return h;
  }

  /**
   * Classifies a key produced by {@link #normalize(String)}.
   *
   * @throws IllegalArgumentException if it is neither an IP literal nor a syntactically valid DNS
   *     name (letters, digits, '-', '_', labels of 1..63 characters, at most 253 in all, an optional
   *     leading "*" label)
   */
  static HostName parse(String normalized) {
    byte[] v4 = parseIpv4(normalized);
    if (v4 != null) {
      return new HostName(normalized, v4);
    }
    if (normalized.indexOf(':') >= 0) {
      return new HostName(normalized, parseIpv6(normalized));
    }
    checkDnsName(normalized);
    return new HostName(normalized, null);
  }

  String name() {
    return name;
  }

  boolean isIpAddress() {
    return address != null;
  }

  /** The address bytes (4 or 16) of an IP literal; a copy. */
  byte[] address() {
    if (address == null) {
      throw new IllegalStateException("not an IP literal: " + name);
    }
    return address.clone();
  }

  /** The subject CN: the name, truncated to the 64 characters RFC 5280 allows. */
  String commonName() {
    return name.length() <= MAX_COMMON_NAME ? name : name.substring(0, MAX_COMMON_NAME);
  }

  /**
   * The dNSName SAN entries: empty for an IP literal; the name itself; plus, for a name with at
   * least three labels whose first label is not already a wildcard, the wildcard sibling ({@code
   * www.example.com} adds {@code *.example.com}), so one leaf also covers the host's siblings when
   * a client coalesces connections. Two-label names never get one: {@code *.com} is not a valid
   * wildcard. Public suffixes with more labels ({@code *.co.uk}) are not filtered: clients ignore
   * such a SAN entry, and the exact name still matches.
   */
  List<String> dnsNames() {
    if (address != null) {
      return List.of();
    }
    int firstDot = name.indexOf('.');
    boolean threeLabels = firstDot > 0 && name.indexOf('.', firstDot + 1) > 0;
    if (!threeLabels || name.startsWith("*.")) {
      return List.of(name);
    }
    return List.of(name, "*" + name.substring(firstDot));
  }

  @Override
  public String toString() {
    return name;
  }

  private static boolean isAscii(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) >= 0x80) {
        return false;
      }
    }
    return true;
  }

  /**
   * Strict dotted quad (four decimal parts, 0..255, no leading zeros: "0127" is octal to inet_aton
   * and 127 to others, so such a host is no literal here), or null.
   */
  private static byte[] parseIpv4(String s) {
    byte[] out = new byte[4];
    int part = 0;
    int value = -1;
    for (int i = 0; i <= s.length(); i++) {
      char c = i < s.length() ? s.charAt(i) : '.';
      if (c >= '0' && c <= '9') {
        if (value == 0) {
          return null; // a leading zero
        }
        value = (value < 0 ? 0 : value * 10) + (c - '0');
        if (value > 255) {
          return null;
        }
      } else if (c == '.' && value >= 0 && part < 4) {
        out[part++] = (byte) value;
        value = -1;
      } else {
        return null;
      }
    }
    return part == 4 ? out : null;
  }

  private static byte[] parseIpv6(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == ':' || c == '.';
      if (!ok) {
        throw new IllegalArgumentException("Not a valid IPv6 literal: " + s);
      }
    }
    try {
      // The brackets make the JDK treat it as a literal that must parse: it never resolves it.
      InetAddress parsed = InetAddress.getByName("[" + s + "]");
      if (parsed instanceof Inet6Address) {
        return parsed.getAddress();
      }
      // "::ffff:a.b.c.d" comes back as an Inet4Address; the client will compare against the
      // 16-byte form it connected to, so keep that.
      byte[] v4 = parsed.getAddress();
      byte[] mapped = new byte[16];
      mapped[10] = (byte) 0xff;
      mapped[11] = (byte) 0xff;
      System.arraycopy(v4, 0, mapped, 12, 4);
      return mapped;
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("Not a valid IPv6 literal: " + s, e);
    }
  }

  private static void checkDnsName(String s) {
    if (s.length() > 253) {
      throw new IllegalArgumentException("Host name longer than 253 characters: " + s);
    }
    int labelStart = 0;
    for (int i = 0; i <= s.length(); i++) {
      char c = i < s.length() ? s.charAt(i) : '.';
      if (c == '.') {
        int labelLength = i - labelStart;
        if (labelLength == 0 || labelLength > 63) {
          throw new IllegalArgumentException("Not a valid host name (label length): " + s);
        }
        labelStart = i + 1;
      } else if (c == '*') {
        boolean wholeFirstLabel = i == 0 && (s.length() == 1 || s.charAt(1) == '.');
        if (!wholeFirstLabel || s.length() == 1) {
          throw new IllegalArgumentException("Not a valid host name (wildcard): " + s);
        }
      } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
        throw new IllegalArgumentException("Not a valid host name (character '" + c + "'): " + s);
      }
    }
  }
}
