package dev.loupe.app.sysproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loupe.ui.sysproxy.SystemProxyControl;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service's save-switch-restore protocol over the GNOME backend and a recording runner: state
 * file first, rollback on a half-way failure, never clobbering a live owner, crash recovery.
 * GsettingsSystemProxyTest does the same against the real gsettings.
 */
@Timeout(60)
class SystemProxyServiceTest {
  @TempDir Path confdir;
  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
  private final List<Boolean> stateFileExistedAtSet = new ArrayList<>();
  private final RecordingCommandRunner runner = new RecordingCommandRunner()
      .on(List.of("gsettings", "list-recursively"), GnomeBackendTest.LISTING);

  private SystemProxyService service(RecordingCommandRunner r) {
    r.on(List.of("gsettings", "set"), argv -> {
      stateFileExistedAtSet.add(Files.exists(confdir.resolve(StateFile.NAME)));
      return new CommandRunner.Output(0, "", "");
    });
    SystemProxyService s = new SystemProxyService(new Backends.Detection(new GnomeBackend(r), null), r, confdir, out);
    s.listening(new InetSocketAddress("0.0.0.0", 8080), false);
    return s;
  }

  private static List<String> set(String schema, String key, String value) {
    return List.of("gsettings", "set", schema, key, value);
  }

  private static final List<List<String>> RESTORE_SEQUENCE = List.of(
      set("org.gnome.system.proxy", "mode", "'none'"),
      set("org.gnome.system.proxy.http", "host", "'old.example'"),
      set("org.gnome.system.proxy.http", "port", "3128"),
      set("org.gnome.system.proxy.http", "enabled", "false"),
      set("org.gnome.system.proxy.https", "host", "''"),
      set("org.gnome.system.proxy.https", "port", "0"),
      set("org.gnome.system.proxy", "ignore-hosts", "['corp.example', \"it's.example\", '10.0.0.0/8']"));

  @Test
  void savesStateBeforeSwitchingAndRestoresOnDisable() throws Exception {
    SystemProxyService s = service(runner);
    assertThat(s.isEnabled()).isFalse();
    String message = s.enable();
    assertThat(message).contains("GNOME (gsettings)", "127.0.0.1:8080", confdir.resolve("system-proxy.json").toString());
    assertThat(s.isEnabled()).isTrue();
    assertThat(stateFileExistedAtSet).hasSize(7).containsOnly(true);
    assertThat(runner.calls("gsettings", "set")).contains(set("org.gnome.system.proxy.http", "host", "'127.0.0.1'"));

    Path state = confdir.resolve("system-proxy.json");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state))).isEqualTo("rw-------");
    JsonNode json = new ObjectMapper().readTree(state.toFile());
    assertThat(json.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
    assertThat(json.get("backend").asText()).isEqualTo("gnome");
    assertThat(json.get("proxy").asText()).isEqualTo("127.0.0.1:8080");
    assertThat(json.get("settings").get("org.gnome.system.proxy mode").asText()).isEqualTo("'none'");
    assertThat(s.enable()).startsWith("The system proxy already points at Loupe");

    runner.clear();
    assertThat(s.disable()).contains("restored the system proxy settings (GNOME (gsettings))");
    assertThat(runner.calls()).containsExactlyElementsOf(RESTORE_SEQUENCE);
    assertThat(state).doesNotExist();
    assertThat(s.isEnabled()).isFalse();
    runner.clear();
    assertThat(s.disable()).isEqualTo("The system proxy is not switched to Loupe.");
    assertThat(runner.calls()).isEmpty();
  }

  @Test
  void aHalfWayFailurePutsEverythingBackAndReportsTheErrorVerbatim() {
    // Only Loupe's value fails (writing the user's value back works).
    runner.on(List.of("gsettings", "set", "org.gnome.system.proxy", "ignore-hosts"),
        argv -> new CommandRunner.Output(argv.get(4).contains("localhost") ? 1 : 0, "",
            argv.get(4).contains("localhost")
                ? "GLib-GIO-CRITICAL **: 12:00:00.000: g_settings_set_value: key 'ignore-hosts' is not writable\n" : ""));
    SystemProxyService s = service(runner);
    List<String> failing = set("org.gnome.system.proxy", "ignore-hosts",
        "['localhost', '127.0.0.0/8', '::1', 'corp.example', 'it\\'s.example', '10.0.0.0/8']");
    assertThatThrownBy(s::enable)
        .isInstanceOf(SystemProxyException.class)
        .hasMessage(CommandRunner.describe(failing) + " failed (exit 1): GLib-GIO-CRITICAL **: 12:00:00.000:"
            + " g_settings_set_value: key 'ignore-hosts' is not writable");
    List<List<String>> calls = runner.calls();
    int failed = calls.indexOf(failing);
    assertThat(failed).isEqualTo(6); // list-recursively, 5 sets, then this one
    assertThat(calls.subList(failed + 1, calls.size())).containsExactlyElementsOf(RESTORE_SEQUENCE);
    assertThat(confdir.resolve(StateFile.NAME)).doesNotExist();
    assertThat(s.isEnabled()).isFalse();
  }

  @Test
  void neverClobbersTheSettingsOfAnotherRunningLoupe() throws Exception {
    Process other = new ProcessBuilder("sleep", "60").start();
    try {
      StateFile.State theirs = new StateFile.State(1, "gnome", other.pid(),
          other.toHandle().info().startInstant().map(Instant::toString).orElse(null), "127.0.0.1:9999",
          Instant.now().toString(), Map.of("org.gnome.system.proxy mode", "'auto'"));
      new StateFile(confdir).write(theirs);
      SystemProxyService s = service(runner);
      assertThatThrownBy(s::enable).hasMessageStartingWith("another Loupe (process " + other.pid()
          + ") has switched the system proxy to 127.0.0.1:9999; stop it first");
      assertThatThrownBy(s::checkNotOwnedByAnother).hasMessageContaining("process " + other.pid());
      assertThat(s.recoverAfterCrash()).isEmpty();
      assertThat(runner.calls()).isEmpty();
      assertThat(new StateFile(confdir).read()).contains(theirs);

      other.destroy();
      assertThat(other.waitFor(10, TimeUnit.SECONDS)).isTrue();
      // Now it is a crash leftover: enabling restores it first, then saves what it restored.
      s.enable();
      assertThat(runner.calls().get(0)).isEqualTo(set("org.gnome.system.proxy", "mode", "'auto'"));
      assertThat(printed.toString(StandardCharsets.UTF_8))
          .contains("Loupe: restored the system proxy settings (GNOME (gsettings)) that Loupe process "
              + other.pid() + " left switched to 127.0.0.1:9999");
      assertThat(new StateFile(confdir).read().orElseThrow().pid()).isEqualTo(ProcessHandle.current().pid());
      s.disable();
    } finally {
      other.destroyForcibly();
    }
  }

  @Test
  void aReusedPidWithAnotherStartTimeIsNotAnOwner() throws Exception {
    StateFile.State stale = new StateFile.State(1, "gnome", ProcessHandle.current().pid(),
        "2001-01-01T00:00:00Z", "127.0.0.1:1", "2001-01-01T00:00:00Z", Map.of("org.gnome.system.proxy mode", "'none'"));
    assertThat(stale.ownerAlive()).isFalse();
    new StateFile(confdir).write(stale);
    SystemProxyService s = service(runner);
    assertThat(s.recoverAfterCrash()).hasValueSatisfying(m -> assertThat(m).startsWith("Loupe: restored"));
    assertThat(runner.calls()).containsExactly(set("org.gnome.system.proxy", "mode", "'none'"));
    assertThat(s.recoverAfterCrash()).isEmpty();
  }

  @Test
  void stateFileKeepsUnsetValuesAsNull() throws Exception {
    Map<String, String> settings = new java.util.LinkedHashMap<>();
    settings.put("ProxyEnable", "REG_DWORD 0x0");
    settings.put("ProxyServer", null); // did not exist: restore deletes it
    StateFile file = new StateFile(confdir.resolve("new-dir"));
    StateFile.State state = StateFile.forThisProcess("windows", new ProxyTarget("127.0.0.1", 8080), settings);
    file.write(state);
    assertThat(file.read()).contains(state);
    assertThat(file.read().orElseThrow().settings()).containsEntry("ProxyServer", null).hasSize(2);
    assertThat(state.ownedByThisProcess()).isTrue();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(confdir.resolve("new-dir"))))
        .isEqualTo("rwx------");
    file.delete();
    assertThat(file.read()).isEmpty();
  }

  @Test
  void restoreSavedWithNothingSaved() throws Exception {
    SystemProxyService s = service(runner);
    assertThat(s.restoreSaved()).startsWith("Loupe: nothing to restore");
    assertThat(runner.calls()).isEmpty();
  }

  @Test
  void theUiPortReportsResultsAndUnsupportedMachines() {
    SystemProxyControl control = service(runner).control();
    assertThat(control.backendName()).isEqualTo("GNOME (gsettings)");
    assertThat(control.unsupportedReason()).isNull();
    SystemProxyControl.Result on = control.enable();
    assertThat(on.ok()).isTrue();
    assertThat(control.isEnabled()).isTrue();
    assertThat(control.disable().ok()).isTrue();
    assertThat(control.isEnabled()).isFalse();

    SystemProxyService none = new SystemProxyService(new Backends.Detection(null, "no tool"), runner,
        confdir.resolve("other"), out);
    none.listening(new InetSocketAddress("127.0.0.1", 1), false);
    assertThat(none.control().unsupportedReason()).isEqualTo("no tool");
    assertThat(none.control().enable()).isEqualTo(new SystemProxyControl.Result(false, "no tool"));
  }
}
