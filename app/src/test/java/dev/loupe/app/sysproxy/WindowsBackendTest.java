package dev.loupe.app.sysproxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The reg and PowerShell command lines and the parsing of reg query (Windows cannot run here). */
@Timeout(30)
class WindowsBackendTest {
  static final String KEY = "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Internet Settings";
  /** {@code reg query KEY} on Windows 10 with a manual proxy configured (CRLF line ends). */
  static final String QUERY = String.join("\r\n",
      "",
      "HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Internet Settings",
      "    DisableCachingOfSSLPages    REG_DWORD    0x0",
      "    IE5_UA_Backup_Flag    REG_SZ    5.0",
      "    User Agent    REG_SZ    Mozilla/4.0 (compatible; MSIE 8.0; Win32)",
      "    EmailName    REG_SZ    User@",
      "    PrivDiscUiShown    REG_DWORD    0x1",
      "    EnableHttp1_1    REG_DWORD    0x1",
      "    WarnOnIntranet    REG_DWORD    0x1",
      "    MimeExclusionListForCache    REG_SZ    multipart/mixed multipart/x-mixed-replace multipart/x-byteranges ",
      "    ProxyEnable    REG_DWORD    0x0",
      "    ProxyServer    REG_SZ    proxy.corp.example:8080",
      "    ProxyOverride    REG_SZ    *.corp.example;<local>",
      "    ZonesSecurityUpgrade    REG_BINARY    E4C1A7B3D5C6D401",
      "",
      "HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Internet Settings\\5.0",
      "HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Internet Settings\\Cache",
      "");

  @Test
  void parsesRegQuery() {
    Map<String, String> values = WindowsBackend.parseQuery(QUERY);
    assertThat(values).containsEntry("ProxyEnable", "REG_DWORD 0x0")
        .containsEntry("ProxyServer", "REG_SZ proxy.corp.example:8080")
        .containsEntry("ProxyOverride", "REG_SZ *.corp.example;<local>")
        .containsEntry("User Agent", "REG_SZ Mozilla/4.0 (compatible; MSIE 8.0; Win32)")
        .doesNotContainKey("HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Internet Settings\\5.0");
    assertThat(WindowsBackend.parseQuery("    ProxyOverride    REG_SZ    \r\n")).containsEntry("ProxyOverride", "REG_SZ ");
  }

  @Test
  void appliesThenRefreshesAndRestoresExactly() throws Exception {
    RecordingCommandRunner r = new RecordingCommandRunner().on(List.of("reg", "query"), QUERY);
    WindowsBackend win = new WindowsBackend(r);
    Map<String, String> saved = win.capture();
    assertThat(r.calls()).containsExactly(List.of("reg", "query", KEY));
    r.clear();
    win.apply(new ProxyTarget("127.0.0.1", 8080), saved);
    assertThat(r.calls()).containsExactly(
        List.of("reg", "add", KEY, "/v", "ProxyServer", "/t", "REG_SZ", "/d", "http=127.0.0.1:8080;https=127.0.0.1:8080", "/f"),
        List.of("reg", "add", KEY, "/v", "ProxyOverride", "/t", "REG_SZ", "/d", "localhost;127.*;[::1];*.corp.example;<local>", "/f"),
        List.of("reg", "add", KEY, "/v", "ProxyEnable", "/t", "REG_DWORD", "/d", "1", "/f"),
        WindowsBackend.refreshCommand());
    r.clear();
    win.restore(saved);
    assertThat(r.calls()).containsExactly(
        List.of("reg", "add", KEY, "/v", "ProxyEnable", "/t", "REG_DWORD", "/d", "0", "/f"),
        List.of("reg", "add", KEY, "/v", "ProxyServer", "/t", "REG_SZ", "/d", "proxy.corp.example:8080", "/f"),
        List.of("reg", "add", KEY, "/v", "ProxyOverride", "/t", "REG_SZ", "/d", "*.corp.example;<local>", "/f"),
        WindowsBackend.refreshCommand());
  }

  @Test
  void valuesThatDidNotExistAreDeletedOnRestore() throws Exception {
    String fresh = "\r\nHKEY_CURRENT_USER\\...\\Internet Settings\r\n    ProxyEnable    REG_DWORD    0x0\r\n";
    RecordingCommandRunner r = new RecordingCommandRunner().on(List.of("reg", "query"), fresh)
        .fail(List.of("reg", "delete", KEY, "/v", "ProxyOverride"), 1,
            "ERROR: The system was unable to find the specified registry key or value.");
    WindowsBackend win = new WindowsBackend(r);
    Map<String, String> saved = win.capture();
    Map<String, String> expected = new HashMap<>();
    expected.put("ProxyEnable", "REG_DWORD 0x0");
    expected.put("ProxyServer", null);
    expected.put("ProxyOverride", null);
    assertThat(saved).isEqualTo(expected);
    r.clear();
    win.restore(saved);
    // ProxyOverride was already gone (reg delete fails); reg query confirms it, so that is fine.
    assertThat(r.calls()).containsExactly(
        List.of("reg", "add", KEY, "/v", "ProxyEnable", "/t", "REG_DWORD", "/d", "0", "/f"),
        List.of("reg", "delete", KEY, "/v", "ProxyServer", "/f"),
        List.of("reg", "delete", KEY, "/v", "ProxyOverride", "/f"),
        List.of("reg", "query", KEY),
        WindowsBackend.refreshCommand());
  }

  @Test
  void refreshCallsInternetSetOption39Then37() {
    List<String> cmd = WindowsBackend.refreshCommand();
    assertThat(cmd.subList(0, 6)).containsExactly("powershell.exe", "-NoProfile", "-NonInteractive",
        "-ExecutionPolicy", "Bypass", "-EncodedCommand");
    String script = new String(Base64.getDecoder().decode(cmd.get(6)), StandardCharsets.UTF_16LE);
    assertThat(script).contains("wininet.dll", "InternetSetOption([IntPtr]::Zero, 39,",
        "InternetSetOption([IntPtr]::Zero, 37,");
    assertThat(script.indexOf(", 39,")).isLessThan(script.indexOf(", 37,"));
  }
}
