package dev.loupe.engine.api;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Parses where Loupe listens, as {@code --listen} and the settings write it: {@code HOST:PORT},
 * {@code [v6]:PORT}, {@code :PORT} or {@code PORT} (host defaults to 127.0.0.1).
 */
public final class ListenAddress {
  private ListenAddress() {}

  /** The address; {@link IllegalArgumentException} with a one-line reason when it is not one. */
  public static InetSocketAddress parse(String s) {
    String host = "127.0.0.1";
    String port = s;
    int colon = s.lastIndexOf(':');
    if (s.startsWith("[")) {
      int close = s.indexOf(']');
      if (close < 0 || close + 1 >= s.length() || s.charAt(close + 1) != ':') {
        throw new IllegalArgumentException("expected [IPv6]:PORT, got '" + s + "'");
      }
      host = s.substring(1, close);
      port = s.substring(close + 2);
    } else if (colon >= 0) {
      if (s.indexOf(':') != colon) {
        throw new IllegalArgumentException("put IPv6 addresses in brackets: [" + s.substring(0, colon) + "]:PORT");
      }
      if (colon > 0) {
        host = s.substring(0, colon);
      }
      port = s.substring(colon + 1);
    }
    int p;
    try {
      p = Integer.parseInt(port);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("invalid port in '" + s + "'");
    }
    if (p < 0 || p > 65535) {
      throw new IllegalArgumentException("port out of range in '" + s + "'");
    }
    try {
      return new InetSocketAddress(InetAddress.getByName(host), p);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("unknown listen host '" + host + "'");
    }
  }

  /** {@code 127.0.0.1:8080}, {@code [::1]:8080}. */
  public static String format(InetSocketAddress a) {
    String h = a.getAddress().getHostAddress();
    return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + a.getPort();
  }
}
