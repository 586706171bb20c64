package dev.loupe.app.sysproxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which backend for which OS and desktop, and the proxy target of a listen address. */
@Timeout(30)
class BackendsTest {
  private final RecordingCommandRunner runner = new RecordingCommandRunner();

  private String pick(String os, Map<String, String> env, Set<String> programs) {
    Predicate<String> onPath = programs::contains;
    Backends.Detection d = Backends.detect(os, env, onPath, runner);
    return d.backend() != null ? d.backend().id() : "unsupported: " + d.unsupportedReason();
  }

  @Test
  void picksByOsDesktopAndTools() {
    assertThat(pick("Windows 11", Map.of(), Set.of())).isEqualTo("windows");
    assertThat(pick("Mac OS X", Map.of(), Set.of())).isEqualTo("macos");
    assertThat(pick("Linux", Map.of("XDG_CURRENT_DESKTOP", "ubuntu:GNOME"), Set.of("gsettings"))).isEqualTo("gnome");
    assertThat(pick("Linux", Map.of(), Set.of("gsettings"))).isEqualTo("gnome");
    assertThat(pick("Linux", Map.of("XDG_CURRENT_DESKTOP", "KDE"),
        Set.of("gsettings", "kwriteconfig5", "kreadconfig5"))).isEqualTo("kde5");
    assertThat(pick("Linux", Map.of("XDG_CURRENT_DESKTOP", "KDE"),
        Set.of("kwriteconfig5", "kreadconfig5", "kwriteconfig6", "kreadconfig6"))).isEqualTo("kde6");
    assertThat(pick("Linux", Map.of("XDG_CURRENT_DESKTOP", "KDE", "KDE_SESSION_VERSION", "5"),
        Set.of("kwriteconfig5", "kreadconfig5", "kwriteconfig6", "kreadconfig6"))).isEqualTo("kde5");
    assertThat(pick("Linux", Map.of("XDG_CURRENT_DESKTOP", "KDE"), Set.of("gsettings"))).isEqualTo("gnome");
    assertThat(pick("Linux", Map.of("XDG_CURRENT_DESKTOP", "KDE"), Set.of()))
        .startsWith("unsupported: KDE desktop, but neither");
    assertThat(pick("Linux", Map.of("XDG_CURRENT_DESKTOP", "XFCE"), Set.of()))
        .startsWith("unsupported: no proxy settings tool found");
  }

  @Test
  void wildcardListenAddressBecomesLoopback() {
    assertThat(ProxyTarget.of(new InetSocketAddress("0.0.0.0", 8080))).isEqualTo(new ProxyTarget("127.0.0.1", 8080));
    assertThat(ProxyTarget.of(new InetSocketAddress("::", 8080))).isEqualTo(new ProxyTarget("127.0.0.1", 8080));
    assertThat(ProxyTarget.of(new InetSocketAddress("127.0.0.2", 1)).hostPort()).isEqualTo("127.0.0.2:1");
    assertThat(ProxyTarget.of(new InetSocketAddress("::1", 8080)).hostPort()).isEqualTo("[::1]:8080");
    assertThat(ProxyTarget.compressIpv6("fd00:0:0:1:0:0:0:2")).isEqualTo("fd00:0:0:1::2");
    assertThat(ProxyTarget.compressIpv6("fe80:1:2:3:4:5:6:7")).isEqualTo("fe80:1:2:3:4:5:6:7");
  }
}
