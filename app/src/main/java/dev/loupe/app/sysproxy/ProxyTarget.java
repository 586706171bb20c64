package dev.loupe.app.sysproxy;

import static java.util.Objects.requireNonNull;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where the system proxy should point: Loupe's listen address, with a wildcard address (0.0.0.0
 * or ::) replaced by 127.0.0.1 since clients cannot connect to a wildcard.
 *
 * @param host an IP literal without brackets
 */
public record ProxyTarget(String host, int port) {
  /** Always bypassed: Loupe must never proxy connections to this machine (nor to itself). */
  public static final List<String> LOCAL_BYPASS = List.of("localhost", "127.0.0.0/8", "::1");

  public ProxyTarget {
    requireNonNull(host, "host");
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
  }

  /** The target for a proxy listening on {@code listening}. */
  public static ProxyTarget of(InetSocketAddress listening) {
    requireNonNull(listening, "listening");
    if (listening.getAddress() == null || listening.getAddress().isAnyLocalAddress()) {
      return new ProxyTarget("127.0.0.1", listening.getPort());
    }
    String h = listening.getAddress().getHostAddress();
    int scope = h.indexOf('%');
    h = scope >= 0 ? h.substring(0, scope) : h;
    return new ProxyTarget(h.indexOf(':') >= 0 ? compressIpv6(h) : h, listening.getPort());
  }

  /** RFC 5952 text (the longest run of two or more zero groups as ::) of Java's full IPv6 text. */
  static String compressIpv6(String full) {
    String[] groups = full.split(":");
    int bestStart = -1;
    int bestLen = 1;
    for (int i = 0; i < groups.length; i++) {
      int j = i;
      while (j < groups.length && groups[j].equals("0")) {
        j++;
      }
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
    }
    if (bestStart < 0) {
      return full;
    }
    String head = String.join(":", java.util.Arrays.asList(groups).subList(0, bestStart));
    String tail = String.join(":", java.util.Arrays.asList(groups).subList(bestStart + bestLen, groups.length));
    return head + "::" + tail;
  }

  /** Whether {@link #host()} is an IPv6 literal. */
  public boolean isIpv6() {
    return host.indexOf(':') >= 0;
  }

  /** The host as it goes into a URL or {@code host:port}: IPv6 in brackets. */
  public String urlHost() {
    return isIpv6() ? "[" + host + "]" : host;
  }

  /** {@code host:port}, IPv6 in brackets. */
  public String hostPort() {
    return urlHost() + ":" + port;
  }

  /** {@code local} first, then {@code previous}, without duplicates, in order. */
  static List<String> merge(List<String> local, List<String> previous) {
    Set<String> all = new LinkedHashSet<>(local);
    for (String p : previous) {
      if (!p.isBlank()) {
        all.add(p.strip());
      }
    }
    return new ArrayList<>(all);
  }
}
