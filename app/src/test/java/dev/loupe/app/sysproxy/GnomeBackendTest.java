package dev.loupe.app.sysproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The gsettings command lines, against a recording runner (GsettingsSystemProxyTest runs the real tool). */
@Timeout(30)
class GnomeBackendTest {
  /** {@code gsettings list-recursively org.gnome.system.proxy} on Debian 12 (gsettings-desktop-schemas 43). */
  static final String LISTING = """
      org.gnome.system.proxy autoconfig-url ''
      org.gnome.system.proxy ignore-hosts ['corp.example', "it's.example", '10.0.0.0/8']
      org.gnome.system.proxy mode 'none'
      org.gnome.system.proxy use-same-proxy true
      org.gnome.system.proxy.ftp host ''
      org.gnome.system.proxy.ftp port 0
      org.gnome.system.proxy.http authentication-password ''
      org.gnome.system.proxy.http authentication-user ''
      org.gnome.system.proxy.http enabled false
      org.gnome.system.proxy.http host 'old.example'
      org.gnome.system.proxy.http port 3128
      org.gnome.system.proxy.http use-authentication false
      org.gnome.system.proxy.https host ''
      org.gnome.system.proxy.https port 0
      org.gnome.system.proxy.socks host ''
      org.gnome.system.proxy.socks port 0
      """;

  private final RecordingCommandRunner runner =
      new RecordingCommandRunner().on(List.of("gsettings", "list-recursively"), LISTING);
  private final GnomeBackend gnome = new GnomeBackend(runner);

  @Test
  void capturesTheKeysItChangesVerbatim() throws Exception {
    Map<String, String> saved = gnome.capture();
    assertThat(runner.calls()).containsExactly(List.of("gsettings", "list-recursively", "org.gnome.system.proxy"));
    assertThat(saved).containsExactly(
        Map.entry("org.gnome.system.proxy.http host", "'old.example'"),
        Map.entry("org.gnome.system.proxy.http port", "3128"),
        Map.entry("org.gnome.system.proxy.http enabled", "false"),
        Map.entry("org.gnome.system.proxy.https host", "''"),
        Map.entry("org.gnome.system.proxy.https port", "0"),
        Map.entry("org.gnome.system.proxy ignore-hosts", "['corp.example', \"it's.example\", '10.0.0.0/8']"),
        Map.entry("org.gnome.system.proxy mode", "'none'"));
  }

  @Test
  void appliesHostPortAndBypassThenTheModeLast() throws Exception {
    Map<String, String> saved = gnome.capture();
    runner.clear();
    gnome.apply(new ProxyTarget("127.0.0.1", 8080), saved);
    assertThat(runner.calls()).containsExactly(
        List.of("gsettings", "set", "org.gnome.system.proxy.http", "host", "'127.0.0.1'"),
        List.of("gsettings", "set", "org.gnome.system.proxy.http", "port", "8080"),
        List.of("gsettings", "set", "org.gnome.system.proxy.http", "enabled", "true"),
        List.of("gsettings", "set", "org.gnome.system.proxy.https", "host", "'127.0.0.1'"),
        List.of("gsettings", "set", "org.gnome.system.proxy.https", "port", "8080"),
        List.of("gsettings", "set", "org.gnome.system.proxy", "ignore-hosts",
            "['localhost', '127.0.0.0/8', '::1', 'corp.example', 'it\\'s.example', '10.0.0.0/8']"),
        List.of("gsettings", "set", "org.gnome.system.proxy", "mode", "'manual'"));
  }

  @Test
  void restoresTheModeFirstThenEveryValueAsPrinted() throws Exception {
    Map<String, String> saved = gnome.capture();
    runner.clear();
    gnome.restore(saved);
    assertThat(runner.calls()).containsExactly(
        List.of("gsettings", "set", "org.gnome.system.proxy", "mode", "'none'"),
        List.of("gsettings", "set", "org.gnome.system.proxy.http", "host", "'old.example'"),
        List.of("gsettings", "set", "org.gnome.system.proxy.http", "port", "3128"),
        List.of("gsettings", "set", "org.gnome.system.proxy.http", "enabled", "false"),
        List.of("gsettings", "set", "org.gnome.system.proxy.https", "host", "''"),
        List.of("gsettings", "set", "org.gnome.system.proxy.https", "port", "0"),
        List.of("gsettings", "set", "org.gnome.system.proxy", "ignore-hosts",
            "['corp.example', \"it's.example\", '10.0.0.0/8']"));
  }

  @Test
  void aSchemaWithoutTheOldEnabledKeyStillWorks() throws Exception {
    RecordingCommandRunner r = new RecordingCommandRunner().on(List.of("gsettings", "list-recursively"),
        LISTING.replace("org.gnome.system.proxy.http enabled false\n", "").replace("['corp.example', \"it's.example\", '10.0.0.0/8']", "@as []"));
    GnomeBackend g = new GnomeBackend(r);
    Map<String, String> saved = g.capture();
    assertThat(saved).doesNotContainKey(GnomeBackend.HTTP_ENABLED).containsEntry(GnomeBackend.IGNORE_HOSTS, "@as []");
    r.clear();
    g.apply(new ProxyTarget("::1", 9000), saved);
    assertThat(r.calls()).extracting(c -> c.get(3)).containsExactly("host", "port", "host", "port", "ignore-hosts", "mode");
    assertThat(r.calls().get(0)).endsWith("'::1'");
    assertThat(r.calls().get(4)).endsWith("['localhost', '127.0.0.0/8', '::1']");
  }

  @Test
  void missingSchemaOrFailingToolIsReportedVerbatim() {
    RecordingCommandRunner r = new RecordingCommandRunner()
        .fail(List.of("gsettings", "list-recursively"), 1, "No such schema \u201corg.gnome.system.proxy\u201d\n");
    assertThatThrownBy(() -> new GnomeBackend(r).capture())
        .isInstanceOf(SystemProxyException.class)
        .hasMessage("gsettings list-recursively org.gnome.system.proxy failed (exit 1): "
            + "No such schema \u201corg.gnome.system.proxy\u201d");
    RecordingCommandRunner partial = new RecordingCommandRunner()
        .on(List.of("gsettings", "list-recursively"), "org.gnome.system.proxy mode 'none'\n");
    assertThatThrownBy(() -> new GnomeBackend(partial).capture()).hasMessageContaining("has no key");
  }

  @Test
  void gvariantStringsAndArraysRoundTrip() {
    assertThat(GVariantText.string("it's a \\ test")).isEqualTo("'it\\'s a \\\\ test'");
    assertThat(GVariantText.parseStringArray("@as []")).isEmpty();
    assertThat(GVariantText.parseStringArray("[]")).isEmpty();
    assertThat(GVariantText.parseStringArray("['a', \"it's\", 'b\\'c', '\\u00e9']"))
        .containsExactly("a", "it's", "b'c", "\u00e9");
    List<String> odd = List.of("x", "it's", "back\\slash", "");
    assertThat(GVariantText.parseStringArray(GVariantText.stringArray(odd))).isEqualTo(odd);
    assertThatThrownBy(() -> GVariantText.parseStringArray("'not an array'")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> GVariantText.parseStringArray("['open")).isInstanceOf(IllegalArgumentException.class);
  }
}
