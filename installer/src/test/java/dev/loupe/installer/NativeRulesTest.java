package dev.loupe.installer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which natives each platform keeps, using the entry names the real dependency jars hold. */
@Timeout(30)
class NativeRulesTest {
  @Test
  void eachPlatformKeepsOnlyItsOwnNettyBrotliAndZstdNatives() {
    String[][] owned = {
        {"linux-x64", "META-INF/native/libnetty_tcnative_linux_x86_64.so",
            "META-INF/native/libnetty_quiche42_linux_x86_64.so",
            "META-INF/native/libnetty_transport_native_epoll_x86_64.so", "lib/linux-x86_64/libbrotli.so",
            "linux/amd64/libzstd-jni-1.5.7-4.so",
            "org/sqlite/native/Linux/x86_64/libsqlitejdbc.so"},
        {"linux-aarch64", "META-INF/native/libnetty_tcnative_linux_aarch_64.so",
            "META-INF/native/libnetty_quiche42_linux_aarch_64.so",
            "META-INF/native/libnetty_transport_native_epoll_aarch_64.so", "lib/linux-aarch64/libbrotli.so",
            "linux/aarch64/libzstd-jni-1.5.7-4.so",
            "org/sqlite/native/Linux/aarch64/libsqlitejdbc.so"},
        {"mac-x64", "META-INF/native/libnetty_tcnative_osx_x86_64.jnilib",
            "META-INF/native/libnetty_quiche42_osx_x86_64.jnilib", "lib/osx-x86_64/libbrotli.dylib",
            "darwin/x86_64/libzstd-jni-1.5.7-4.dylib",
            "org/sqlite/native/Mac/x86_64/libsqlitejdbc.dylib"},
        {"mac-aarch64", "META-INF/native/libnetty_tcnative_osx_aarch_64.jnilib",
            "META-INF/native/libnetty_quiche42_osx_aarch_64.jnilib", "lib/osx-aarch64/libbrotli.dylib",
            "darwin/aarch64/libzstd-jni-1.5.7-4.dylib",
            "org/sqlite/native/Mac/aarch64/libsqlitejdbc.dylib"},
        {"win-x64", "META-INF/native/netty_tcnative_windows_x86_64.dll",
            "META-INF/native/netty_quiche42_windows_x86_64.dll", "lib/windows-x86_64/brotli.dll",
            "win/amd64/libzstd-jni-1.5.7-4.dll", "org/sqlite/native/Windows/x86_64/sqlitejdbc.dll"}};
    for (String[] row : owned) {
      Platform p = Platform.byId(row[0]);
      for (String[] other : owned) {
        NativeRules.Decision expected = other == row ? NativeRules.Decision.KEEP : NativeRules.Decision.DROP;
        for (int i = 1; i < other.length; i++) {
          assertThat(new NativeRules(p).decide(other[i])).as(p.id() + " " + other[i]).isEqualTo(expected);
        }
      }
    }
  }

  @Test
  void zstdsOtherPlatformsAndSignaturesAreDroppedClassesKept() {
    NativeRules linux = new NativeRules(Platform.LINUX_X64);
    assertThat(linux.decide("linux/s390x/libzstd-jni-1.5.7-4.so")).isEqualTo(NativeRules.Decision.DROP);
    assertThat(linux.decide("freebsd/amd64/libzstd-jni-1.5.7-4.so")).isEqualTo(NativeRules.Decision.DROP);
    assertThat(linux.decide("org/sqlite/native/FreeBSD/aarch64/libsqlitejdbc.so")).isEqualTo(NativeRules.Decision.DROP);
    assertThat(linux.decide("org/sqlite/native/Linux/armv7/libsqlitejdbc.so")).isEqualTo(NativeRules.Decision.DROP);
    assertThat(linux.decide("org/sqlite/native/Windows/x86/sqlitejdbc.dll")).isEqualTo(NativeRules.Decision.DROP);
    assertThat(linux.decide("org/sqlite/native/Linux-Musl/x86_64/libsqlitejdbc.so")).isEqualTo(NativeRules.Decision.KEEP);
    assertThat(linux.decide("META-INF/BC1024KE.SF")).isEqualTo(NativeRules.Decision.DROP);
    assertThat(linux.decide("META-INF/BC1024KE.DSA")).isEqualTo(NativeRules.Decision.DROP);
    assertThat(linux.decide("io/netty/channel/epoll/Native.class")).isEqualTo(NativeRules.Decision.KEEP);
    assertThat(linux.decide("META-INF/services/java.security.Provider")).isEqualTo(NativeRules.Decision.KEEP);
  }

  @Test
  void aNativeNoRuleKnowsStopsTheBuild() {
    assertThatThrownBy(() -> new NativeRules(Platform.LINUX_X64).decide("natives/libmystery.so"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("natives/libmystery.so");
  }

  @Test
  void otherPlatformsClassifierJarsAreLeftOutWhole() {
    NativeRules mac = new NativeRules(Platform.MAC_AARCH64);
    assertThat(mac.isOtherPlatformsJar("netty-tcnative-boringssl-static-2.0.84.Final-linux-x86_64.jar")).isTrue();
    assertThat(mac.isOtherPlatformsJar("native-linux-aarch64-1.18.0.jar")).isTrue();
    assertThat(mac.isOtherPlatformsJar("netty-codec-native-quic-4.2.18.Final-osx-x86_64.jar")).isTrue();
    assertThat(mac.isOtherPlatformsJar("netty-codec-native-quic-4.2.18.Final-osx-aarch_64.jar")).isFalse();
    assertThat(mac.isOtherPlatformsJar("native-osx-aarch64-1.18.0.jar")).isFalse();
    assertThat(mac.isOtherPlatformsJar("zstd-jni-1.5.7-4.jar")).isFalse();
  }
}
