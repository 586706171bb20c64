package dev.loupe.app.sysproxy;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GNOME and other GTK desktops: the {@code org.gnome.system.proxy} GSettings schema, through
 * {@code gsettings} (GIO's proxy resolver, libproxy, Chromium and Firefox read it).
 *
 * <p>Saved keys are {@code "<schema> <key>"} (as on the gsettings command line) mapped to the
 * value's GVariant text exactly as {@code gsettings list-recursively} printed it, so a restore
 * gives back the very same value (type annotations, quoting and all).
 */
final class GnomeBackend implements ProxyBackend {
  static final String SCHEMA = "org.gnome.system.proxy";
  static final String MODE = SCHEMA + " mode";
  static final String IGNORE_HOSTS = SCHEMA + " ignore-hosts";
  static final String HTTP_HOST = SCHEMA + ".http host";
  static final String HTTP_PORT = SCHEMA + ".http port";
  static final String HTTP_ENABLED = SCHEMA + ".http enabled";
  static final String HTTPS_HOST = SCHEMA + ".https host";
  static final String HTTPS_PORT = SCHEMA + ".https port";
  /** What is changed, in the order {@link #apply} writes it: the mode last, so the switch is one step. */
  static final List<String> KEYS =
      List.of(HTTP_HOST, HTTP_PORT, HTTP_ENABLED, HTTPS_HOST, HTTPS_PORT, IGNORE_HOSTS, MODE);
  /** Required; http enabled is an old key some schema versions lack. */
  private static final List<String> REQUIRED = List.of(MODE, IGNORE_HOSTS, HTTP_HOST, HTTP_PORT, HTTPS_HOST, HTTPS_PORT);

  private final CommandRunner runner;

  GnomeBackend(CommandRunner runner) {
    this.runner = requireNonNull(runner, "runner");
  }

  @Override
  public String id() {
    return "gnome";
  }

  @Override
  public String displayName() {
    return "GNOME (gsettings)";
  }

  @Override
  public Map<String, String> capture() throws SystemProxyException {
    String listing = runner.check(List.of("gsettings", "list-recursively", SCHEMA)).stdout();
    Map<String, String> all = parseListing(listing);
    Map<String, String> saved = new LinkedHashMap<>();
    for (String k : KEYS) {
      if (all.containsKey(k)) {
        saved.put(k, all.get(k));
      } else if (REQUIRED.contains(k)) {
        throw new SystemProxyException("gsettings has no key " + k + " (is gsettings-desktop-schemas installed?)");
      }
    }
    try {
      GVariantText.parseStringArray(saved.get(IGNORE_HOSTS));
    } catch (IllegalArgumentException e) {
      throw new SystemProxyException("cannot read " + IGNORE_HOSTS + ": " + e.getMessage(), e);
    }
    return saved;
  }

  /** {@code gsettings list-recursively} output: {@code schema key value} per line. */
  static Map<String, String> parseListing(String listing) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : listing.split("\r?\n")) {
      int a = line.indexOf(' ');
      int b = a < 0 ? -1 : line.indexOf(' ', a + 1);
      if (b > 0) {
        out.put(line.substring(0, b), line.substring(b + 1));
      }
    }
    return out;
  }

  @Override
  public void apply(ProxyTarget target, Map<String, String> previous) throws SystemProxyException {
    List<String> bypass = ProxyTarget.merge(ProxyTarget.LOCAL_BYPASS,
        GVariantText.parseStringArray(previous.getOrDefault(IGNORE_HOSTS, "@as []")));
    String host = GVariantText.string(target.host());
    String port = Integer.toString(target.port());
    for (String k : KEYS) {
      if (!previous.containsKey(k)) {
        continue;
      }
      String value = switch (k) {
        case HTTP_HOST, HTTPS_HOST -> host;
        case HTTP_PORT, HTTPS_PORT -> port;
        case HTTP_ENABLED -> "true";
        case IGNORE_HOSTS -> GVariantText.stringArray(bypass);
        case MODE -> "'manual'";
        default -> throw new IllegalStateException(k);
      };
      set(k, value);
    }
  }

  @Override
  public void restore(Map<String, String> saved) throws SystemProxyException {
    // The mode first: once it is back, the other values are inert.
    if (saved.containsKey(MODE)) {
      set(MODE, saved.get(MODE));
    }
    for (String k : KEYS) {
      if (!k.equals(MODE) && saved.get(k) != null) {
        set(k, saved.get(k));
      }
    }
  }

  private void set(String schemaAndKey, String gvariant) throws SystemProxyException {
    int space = schemaAndKey.indexOf(' ');
    runner.check(List.of("gsettings", "set", schemaAndKey.substring(0, space), schemaAndKey.substring(space + 1),
        gvariant));
  }
}
