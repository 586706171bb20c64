package dev.loupe.app.sysproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The kreadconfig/kwriteconfig/dbus-send command lines (KDE cannot run here). */
@Timeout(30)
class KdeBackendTest {
  private static List<String> read(int v, String key) {
    return List.of("kreadconfig" + v, "--file", "kioslaverc", "--group", "Proxy Settings", "--key", key);
  }

  private static List<String> write(int v, String key, String value) {
    List<String> argv = new ArrayList<>(List.of("kwriteconfig" + v, "--file", "kioslaverc", "--group",
        "Proxy Settings", "--key", key));
    argv.add(value);
    return argv;
  }

  private static final List<String> REPARSE = List.of("dbus-send", "--session", "--type=signal", "/KIO/Scheduler",
      "org.kde.KIO.Scheduler.reparseSlaveConfiguration", "string:");

  /** kreadconfig5 prints the value and a newline; an unset key prints just the newline. */
  private static RecordingCommandRunner kioslaverc(int v, Map<String, String> values) {
    RecordingCommandRunner r = new RecordingCommandRunner();
    for (String k : KdeBackend.KEYS) {
      r.on(read(v, k), values.getOrDefault(k, "") + "\n");
    }
    return r;
  }

  @Test
  void capturesEachKeyUnsetAsNull() throws Exception {
    RecordingCommandRunner r = kioslaverc(5, Map.of("ProxyType", "0", "NoProxyFor", "corp.example,10.0.0.0/8"));
    Map<String, String> saved = new KdeBackend(r, 5).capture();
    assertThat(r.calls()).containsExactly(read(5, "httpProxy"), read(5, "httpsProxy"), read(5, "NoProxyFor"),
        read(5, "ReversedException"), read(5, "ProxyType"));
    Map<String, String> expected = new HashMap<>();
    expected.put("httpProxy", null);
    expected.put("httpsProxy", null);
    expected.put("NoProxyFor", "corp.example,10.0.0.0/8");
    expected.put("ReversedException", null);
    expected.put("ProxyType", "0");
    assertThat(saved).isEqualTo(expected);
  }

  @Test
  void appliesManualProxyThenTellsKioToReparse() throws Exception {
    RecordingCommandRunner r = kioslaverc(6, Map.of("ProxyType", "0", "NoProxyFor", "corp.example, localhost"));
    KdeBackend kde = new KdeBackend(r, 6);
    Map<String, String> saved = kde.capture();
    r.clear();
    kde.apply(new ProxyTarget("127.0.0.1", 8080), saved);
    assertThat(r.calls()).containsExactly(
        write(6, "httpProxy", "http://127.0.0.1 8080"),
        write(6, "httpsProxy", "http://127.0.0.1 8080"),
        write(6, "NoProxyFor", "localhost,127.0.0.0/8,::1,corp.example"),
        write(6, "ReversedException", "false"),
        write(6, "ProxyType", "1"),
        REPARSE);
  }

  @Test
  void restoresTypeFirstAndDeletesKeysThatWereUnset() throws Exception {
    RecordingCommandRunner r = kioslaverc(5, Map.of("ProxyType", "2", "httpProxy", "http://old.example 3128"));
    KdeBackend kde = new KdeBackend(r, 5);
    Map<String, String> saved = kde.capture();
    r.clear();
    kde.restore(saved);
    List<String> del = new ArrayList<>(write(5, "httpsProxy", "--delete"));
    assertThat(r.calls()).containsExactly(
        write(5, "ProxyType", "2"),
        write(5, "httpProxy", "http://old.example 3128"),
        del,
        write(5, "NoProxyFor", "--delete"),
        write(5, "ReversedException", "--delete"),
        REPARSE);
  }

  @Test
  void ipv6TargetIsBracketedAndAFailedWriteIsVerbatim() throws Exception {
    RecordingCommandRunner r = kioslaverc(5, Map.of()).fail(List.of("kwriteconfig5", "--file", "kioslaverc",
        "--group", "Proxy Settings", "--key", "NoProxyFor"), 1, "kwriteconfig5: cannot write kioslaverc");
    KdeBackend kde = new KdeBackend(r, 5);
    Map<String, String> saved = kde.capture();
    r.clear();
    assertThatThrownBy(() -> kde.apply(new ProxyTarget("::1", 8080), saved))
        .hasMessage("kwriteconfig5 --file kioslaverc --group 'Proxy Settings' --key NoProxyFor"
            + " localhost,127.0.0.0/8,::1 failed (exit 1): kwriteconfig5: cannot write kioslaverc");
    assertThat(r.calls().get(0)).isEqualTo(write(5, "httpProxy", "http://[::1] 8080"));
  }

  @Test
  void reversedExceptionListIsNotTakenAsBypass() throws Exception {
    RecordingCommandRunner r = kioslaverc(5, Map.of("ReversedException", "true", "NoProxyFor", "only.example"));
    KdeBackend kde = new KdeBackend(r, 5);
    Map<String, String> saved = kde.capture();
    r.clear();
    kde.apply(new ProxyTarget("127.0.0.1", 1), saved);
    assertThat(r.calls().get(2)).isEqualTo(write(5, "NoProxyFor", "localhost,127.0.0.0/8,::1"));
  }
}
