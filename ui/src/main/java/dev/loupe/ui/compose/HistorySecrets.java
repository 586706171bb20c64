package dev.loupe.ui.compose;

import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.flow.Headers;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What the composer history leaves out unless the user opted in to keeping secrets: the values of
 * credential headers ({@code Authorization}, {@code Proxy-Authorization}, {@code Cookie}, and
 * headers named like a token, key, secret, password or session) and the password in a URL's
 * userinfo. The header stays with an empty value, so the user sees what to fill in again.
 * Stateless and thread-safe.
 */
final class HistorySecrets {
  private static final Set<String> NAMED = Set.of("authorization", "proxy-authorization", "cookie");
  private static final List<String> PARTS = List.of("token", "secret", "password", "passwd", "api-key", "apikey",
      "api_key", "session", "auth", "credential", "signature");

  private HistorySecrets() {}

  /** Whether a header of this name carries a credential. */
  static boolean isSecret(String headerName) {
    String n = headerName.toLowerCase(Locale.ROOT);
    if (NAMED.contains(n)) {
      return true;
    }
    for (String p : PARTS) {
      if (n.contains(p)) {
        return true;
      }
    }
    return false;
  }

  /** {@code d} without its secrets, and the names of what was removed (empty: nothing was). */
  record Redacted(RequestDraft request, List<String> removed) {}

  static Redacted redact(RequestDraft d) {
    Set<String> removed = new LinkedHashSet<>();
    List<Headers.Field> fields = new ArrayList<>(d.headers().size());
    for (Headers.Field f : d.headers().fields()) {
      if (isSecret(f.name()) && !f.value().isEmpty()) {
        removed.add(f.name());
        fields.add(new Headers.Field(f.name(), ""));
      } else {
        fields.add(f);
      }
    }
    String url = d.url();
    String withoutPassword = withoutPassword(url);
    if (!withoutPassword.equals(url)) {
      removed.add("URL password");
    }
    if (removed.isEmpty()) {
      return new Redacted(d, List.of());
    }
    return new Redacted(d.withHeaders(Headers.of(fields)).withUrl(withoutPassword), List.copyOf(removed));
  }

  /** {@code url} with the password of its userinfo taken out ({@code user:pw@} becomes {@code user@}). */
  static String withoutPassword(String url) {
    try {
      URI u = new URI(url);
      String info = u.getRawUserInfo();
      if (info == null || info.indexOf(':') < 0 || u.getRawAuthority() == null) {
        return url;
      }
      String user = info.substring(0, info.indexOf(':'));
      int at = url.indexOf(u.getRawAuthority());
      return url.substring(0, at) + user + "@" + url.substring(at + info.length() + 1);
    } catch (URISyntaxException e) {
      // Not a URI: cut anything between "//" and the last '@' before the path, to be safe.
      int start = url.indexOf("//");
      int end = url.indexOf('/', start + 2);
      int at = url.lastIndexOf('@', end < 0 ? url.length() : end);
      return start >= 0 && at > start ? url.substring(0, start + 2) + url.substring(at + 1) : url;
    }
  }
}
