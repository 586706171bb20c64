package dev.loupe.engine.fuzz;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * What a recorded host may look like: an IP literal, or a reg-name of letters, digits and
 * {@code - . _ ~ %} (RFC 3986 unreserved characters and percent escapes; no sub-delims).
 */
final class HostChars {
  private HostChars() {}

  static boolean isHost(String host) {
    if (host == null || host.isEmpty()) {
      return false;
    }
    if (host.indexOf(':') >= 0) {
      if (!host.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.')) {
        return false;
      }
      try {
        InetAddress.getByName("[" + host + "]"); // a literal: never resolved
        return true;
      } catch (UnknownHostException e) {
        return false;
      }
    }
    return host.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '-' || c == '_' || c == '.' || c == '~' || c == '%');
  }
}
