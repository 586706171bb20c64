package dev.loupe.app.sysproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The networksetup command lines and the parsing of its output (macOS cannot run here). */
@Timeout(30)
class MacBackendTest {
  static final String SERVICES = """
      An asterisk (*) denotes that a network service is disabled.
      USB 10/100/1000 LAN
      Wi-Fi
      *Thunderbolt Bridge
      """;
  static final String NO_PROXY = """
      Enabled: No
      Server:\s
      Port: 0
      Authenticated Proxy Enabled: 0
      """;
  static final String CORP_PROXY = """
      Enabled: Yes
      Server: proxy.corp.example
      Port: 3128
      Authenticated Proxy Enabled: 0
      """;
  static final String NO_BYPASS = "There aren't any bypass domains set on Wi-Fi.\n";
  static final String BYPASS = "*.local\n169.254/16\n";

  private final RecordingCommandRunner runner = new RecordingCommandRunner()
      .on(List.of("networksetup", "-listallnetworkservices"), SERVICES)
      .on(List.of("networksetup", "-getwebproxy", "USB 10/100/1000 LAN"), CORP_PROXY)
      .on(List.of("networksetup", "-getsecurewebproxy", "USB 10/100/1000 LAN"), NO_PROXY)
      .on(List.of("networksetup", "-getproxybypassdomains", "USB 10/100/1000 LAN"), BYPASS)
      .on(List.of("networksetup", "-getwebproxy", "Wi-Fi"), NO_PROXY)
      .on(List.of("networksetup", "-getsecurewebproxy", "Wi-Fi"), NO_PROXY)
      .on(List.of("networksetup", "-getproxybypassdomains", "Wi-Fi"), NO_BYPASS);
  private final MacBackend mac = new MacBackend(runner);

  @Test
  void parsesRealOutputs() throws Exception {
    assertThat(MacBackend.parseServices(SERVICES)).containsExactly("USB 10/100/1000 LAN", "Wi-Fi");
    assertThat(MacBackend.parseWebProxy(NO_PROXY)).isEqualTo(new MacBackend.WebProxy(false, "", 0, false));
    assertThat(MacBackend.parseWebProxy(CORP_PROXY))
        .isEqualTo(new MacBackend.WebProxy(true, "proxy.corp.example", 3128, false));
    assertThat(MacBackend.parseBypassDomains(NO_BYPASS)).isEmpty();
    assertThat(MacBackend.parseBypassDomains(BYPASS)).containsExactly("*.local", "169.254/16");
    assertThatThrownBy(() -> MacBackend.parseWebProxy("** Error: The parameters were not valid.\n"))
        .isInstanceOf(SystemProxyException.class);
  }

  @Test
  void capturesEveryEnabledService() throws Exception {
    Map<String, String> saved = mac.capture();
    assertThat(saved).containsExactly(
        Map.entry("USB 10/100/1000 LAN/web", "on proxy.corp.example 3128"),
        Map.entry("USB 10/100/1000 LAN/secureweb", "off  0"),
        Map.entry("USB 10/100/1000 LAN/bypass", "*.local\n169.254/16"),
        Map.entry("Wi-Fi/web", "off  0"),
        Map.entry("Wi-Fi/secureweb", "off  0"),
        new java.util.AbstractMap.SimpleEntry<>("Wi-Fi/bypass", null));
    assertThat(runner.calls()).containsExactly(
        List.of("networksetup", "-listallnetworkservices"),
        List.of("networksetup", "-getwebproxy", "USB 10/100/1000 LAN"),
        List.of("networksetup", "-getsecurewebproxy", "USB 10/100/1000 LAN"),
        List.of("networksetup", "-getproxybypassdomains", "USB 10/100/1000 LAN"),
        List.of("networksetup", "-getwebproxy", "Wi-Fi"),
        List.of("networksetup", "-getsecurewebproxy", "Wi-Fi"),
        List.of("networksetup", "-getproxybypassdomains", "Wi-Fi"));
  }

  @Test
  void appliesToEachService() throws Exception {
    Map<String, String> saved = mac.capture();
    runner.clear();
    mac.apply(new ProxyTarget("127.0.0.1", 8080), saved);
    assertThat(runner.calls()).containsExactly(
        List.of("networksetup", "-setproxybypassdomains", "USB 10/100/1000 LAN", "localhost", "127.0.0.0/8", "::1",
            "*.local", "169.254/16"),
        List.of("networksetup", "-setwebproxy", "USB 10/100/1000 LAN", "127.0.0.1", "8080"),
        List.of("networksetup", "-setsecurewebproxy", "USB 10/100/1000 LAN", "127.0.0.1", "8080"),
        List.of("networksetup", "-setwebproxystate", "USB 10/100/1000 LAN", "on"),
        List.of("networksetup", "-setsecurewebproxystate", "USB 10/100/1000 LAN", "on"),
        List.of("networksetup", "-setproxybypassdomains", "Wi-Fi", "localhost", "127.0.0.0/8", "::1"),
        List.of("networksetup", "-setwebproxy", "Wi-Fi", "127.0.0.1", "8080"),
        List.of("networksetup", "-setsecurewebproxy", "Wi-Fi", "127.0.0.1", "8080"),
        List.of("networksetup", "-setwebproxystate", "Wi-Fi", "on"),
        List.of("networksetup", "-setsecurewebproxystate", "Wi-Fi", "on"));
  }

  @Test
  void restoresStatesServersAndBypass() throws Exception {
    Map<String, String> saved = mac.capture();
    runner.clear();
    mac.restore(saved);
    assertThat(runner.calls()).containsExactly(
        List.of("networksetup", "-setwebproxystate", "USB 10/100/1000 LAN", "on"),
        List.of("networksetup", "-setsecurewebproxystate", "USB 10/100/1000 LAN", "off"),
        List.of("networksetup", "-setwebproxy", "USB 10/100/1000 LAN", "proxy.corp.example", "3128"),
        List.of("networksetup", "-setproxybypassdomains", "USB 10/100/1000 LAN", "*.local", "169.254/16"),
        List.of("networksetup", "-setwebproxystate", "Wi-Fi", "off"),
        List.of("networksetup", "-setsecurewebproxystate", "Wi-Fi", "off"),
        List.of("networksetup", "-setproxybypassdomains", "Wi-Fi", "Empty"));
  }

  @Test
  void refusesAnAuthenticatedProxyAndReportsErrorsPrintedWithExitZero() {
    RecordingCommandRunner auth = new RecordingCommandRunner()
        .on(List.of("networksetup", "-listallnetworkservices"), SERVICES)
        .on(List.of("networksetup", "-getwebproxy"), CORP_PROXY.replace("Enabled: 0", "Enabled: 1"))
        .on(List.of("networksetup", "-getsecurewebproxy"), NO_PROXY);
    assertThatThrownBy(() -> new MacBackend(auth).capture()).hasMessageContaining("uses authentication");
    RecordingCommandRunner broken = new RecordingCommandRunner()
        .on(List.of("networksetup", "-listallnetworkservices"), "An asterisk (*) denotes that a network service is disabled.\nWi-Fi\n")
        .on(List.of("networksetup", "-getwebproxy"), "** Error: The parameters were not valid.\n");
    assertThatThrownBy(() -> new MacBackend(broken).capture())
        .hasMessage("networksetup -getwebproxy Wi-Fi failed: ** Error: The parameters were not valid.");
  }
}
