package dev.loupe.installer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code loupe-<platform>.jar} for each of the five platforms, built from the real
 * {@code app/target/loupe.jar} and JavaFX jars: every native library inside is read by its header
 * (ELF/Mach-O/PE machine) and must be the platform's own; JavaFX, Netty (tcnative, QUIC, and epoll on
 * Linux), brotli and zstd natives must all be there, JavaFX's byte for byte as its jar has them; and the
 * jar for this machine runs and proxies a request.
 */
@Timeout(600)
class PlatformJarsIT {
  @TempDir static Path dir;
  private static Set<String> javafxEntries;

  private static Path fatJar() {
    Path jar = Path.of(System.getProperty("loupe.jar"));
    assertThat(jar).as("app/target/loupe.jar (run the package phase)").isRegularFile();
    return jar;
  }

  private static Path javafxRoot() {
    return Path.of(System.getProperty("loupe.javafx.dir"));
  }

  @BeforeAll
  static void readJavafx() throws Exception {
    javafxEntries = PlatformJars.javafxEntries(javafxRoot());
  }

  private static Path build(Platform p) throws Exception {
    Path out = dir.resolve(PlatformJars.fileName(p));
    if (!Files.exists(out)) {
      List<Path> extra = JavaRuntime.jars(Path.of(System.getProperty("loupe.extra.jars"))).stream().map(Path::of).toList();
      PlatformJars.runnableJar(fatJar(), javafxRoot(), javafxEntries, extra, p, out);
    }
    return out;
  }

  /** The natives each platform's jar must hold (besides JavaFX's), by entry name. */
  private static List<String> requiredNatives(Platform p) {
    return switch (p) {
      case LINUX_X64 -> List.of("META-INF/native/libnetty_tcnative_linux_x86_64.so",
          "META-INF/native/libnetty_quiche42_linux_x86_64.so",
          "META-INF/native/libnetty_transport_native_epoll_x86_64.so", "lib/linux-x86_64/libbrotli.so",
          "linux/amd64/libzstd-jni-1.5.7-4.so",
          "org/sqlite/native/Linux/x86_64/libsqlitejdbc.so");
      case LINUX_AARCH64 -> List.of("META-INF/native/libnetty_tcnative_linux_aarch_64.so",
          "META-INF/native/libnetty_quiche42_linux_aarch_64.so",
          "META-INF/native/libnetty_transport_native_epoll_aarch_64.so", "lib/linux-aarch64/libbrotli.so",
          "linux/aarch64/libzstd-jni-1.5.7-4.so",
          "org/sqlite/native/Linux/aarch64/libsqlitejdbc.so");
      case MAC_X64 -> List.of("META-INF/native/libnetty_tcnative_osx_x86_64.jnilib",
          "META-INF/native/libnetty_quiche42_osx_x86_64.jnilib", "lib/osx-x86_64/libbrotli.dylib",
          "darwin/x86_64/libzstd-jni-1.5.7-4.dylib",
          "org/sqlite/native/Mac/x86_64/libsqlitejdbc.dylib");
      case MAC_AARCH64 -> List.of("META-INF/native/libnetty_tcnative_osx_aarch_64.jnilib",
          "META-INF/native/libnetty_quiche42_osx_aarch_64.jnilib", "lib/osx-aarch64/libbrotli.dylib",
          "darwin/aarch64/libzstd-jni-1.5.7-4.dylib",
          "org/sqlite/native/Mac/aarch64/libsqlitejdbc.dylib");
      case WIN_X64 -> List.of("META-INF/native/netty_tcnative_windows_x86_64.dll",
          "META-INF/native/netty_quiche42_windows_x86_64.dll", "lib/windows-x86_64/brotli.dll",
          "win/amd64/libzstd-jni-1.5.7-4.dll", "org/sqlite/native/Windows/x86_64/sqlitejdbc.dll");
    };
  }

  /** JavaFX's glass (windowing) toolkit class for each OS, and its natives' names. */
  private static String glass(Platform.Os os) {
    return switch (os) {
      case LINUX -> "com/sun/glass/ui/gtk/GtkApplication.class";
      case MAC -> "com/sun/glass/ui/mac/MacApplication.class";
      case WINDOWS -> "com/sun/glass/ui/win/WinApplication.class";
    };
  }

  private static List<String> javafxNatives(Platform.Os os) {
    return switch (os) {
      case LINUX -> List.of("libglass.so", "libglassgtk3.so", "libprism_sw.so", "libprism_es2.so",
          "libjavafx_font.so", "libjavafx_font_freetype.so", "libjavafx_iio.so", "libdecora_sse.so");
      case MAC -> List.of("libglass.dylib", "libprism_sw.dylib", "libprism_es2.dylib", "libjavafx_font.dylib",
          "libjavafx_iio.dylib", "libdecora_sse.dylib");
      case WINDOWS -> List.of("glass.dll", "prism_sw.dll", "prism_d3d.dll", "javafx_font.dll", "javafx_iio.dll",
          "decora_sse.dll");
    };
  }

  @ParameterizedTest
  @EnumSource(Platform.class)
  void holdsThePlatformsOwnNativesAndNoOthers(Platform p) throws Exception {
    try (JarFile jar = new JarFile(build(p).toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class")).isEqualTo("dev.loupe.app.Main");
      assertThat(jar.getManifest().getMainAttributes().getValue("Loupe-Platform")).isEqualTo(p.id());
      Map<String, Platform> natives = new HashMap<>();
      for (JarEntry e : jar.stream().toList()) {
        if (NativeRules.isNative(e.getName())) {
          natives.put(e.getName(), NativeBinary.platformOf(jar.getInputStream(e).readAllBytes()));
        }
      }
      assertThat(natives).as("every native library's header names " + p.id()).allSatisfy((name, owner) ->
          assertThat(owner).as(name).isEqualTo(p));
      assertThat(natives.keySet()).containsAll(requiredNatives(p)).containsAll(javafxNatives(p.os()));
      if (p.os() != Platform.Os.LINUX) {
        assertThat(natives.keySet()).noneMatch(n -> n.contains("epoll") || n.contains("io_uring"));
      }
      for (Platform.Os os : Platform.Os.values()) {
        assertThat(jar.getEntry(glass(os)) != null).as(glass(os)).isEqualTo(os == p.os());
      }
      // JavaFX natives byte for byte as the platform's JavaFX jar has them
      for (Path fx : PlatformJars.javafxJars(javafxRoot(), p)) {
        try (JarFile j = new JarFile(fx.toFile())) {
          for (JarEntry e : j.stream().filter(e -> NativeRules.isNative(e.getName())).toList()) {
            assertThat(sha256(jar.getInputStream(jar.getEntry(e.getName())).readAllBytes()))
                .as(e.getName()).isEqualTo(sha256(j.getInputStream(e).readAllBytes()));
          }
        }
      }
      // everything else of the fat jar is there: the app, the engine, the UI, the services files
      assertThat(jar.getEntry("dev/loupe/app/Main.class")).isNotNull();
      assertThat(jar.getEntry("dev/loupe/ui/shell/DesktopApp.class")).isNotNull();
      assertThat(jar.getEntry("io/netty/handler/codec/http3/Http3.class")).isNotNull();
      try (JarFile fat = new JarFile(fatJar().toFile())) { // ServiceLoader files as shade merged them
        List<JarEntry> services = fat.stream().filter(e -> e.getName().startsWith("META-INF/services/")
            && !e.isDirectory()).toList();
        assertThat(services).isNotEmpty();
        for (JarEntry e : services) {
          assertThat(jar.getInputStream(jar.getEntry(e.getName())).readAllBytes()).as(e.getName())
              .isEqualTo(fat.getInputStream(e).readAllBytes());
        }
      }
      assertThat(jar.stream().filter(e -> e.getName().matches("META-INF/[^/]+\\.(SF|RSA|DSA)"))).isEmpty();
    }
  }

  /** The jar for this machine starts headless and proxies a request, the body arriving byte for byte. */
  @Test
  void thisMachinesJarRunsAndProxies(@TempDir Path work) throws Exception {
    Platform here = Platform.current();
    Path jar = build(here);
    com.sun.net.httpserver.HttpServer origin = com.sun.net.httpserver.HttpServer.create(
        new InetSocketAddress("127.0.0.1", 0), 0);
    byte[] body = new byte[200_000];
    new java.util.Random(16).nextBytes(body);
    origin.createContext("/", ex -> {
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    origin.start();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process loupe = new ProcessBuilder(java, "-jar", jar.toString(), "--headless", "--listen", "127.0.0.1:0",
        "--confdir", work.resolve("conf").toString()).redirectErrorStream(true).start();
    try {
      CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();
      List<String> output = new java.util.concurrent.CopyOnWriteArrayList<>();
      Thread reader = new Thread(() -> {
        Pattern at = Pattern.compile("listening on http://([0-9.]+):(\\d+)");
        try (BufferedReader r = new BufferedReader(new InputStreamReader(loupe.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = r.readLine()) != null; ) {
            output.add(line);
            Matcher m = at.matcher(line);
            if (m.find()) {
              listening.complete(new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2))));
            }
          }
        } catch (java.io.IOException ignored) {
          // the process ended
        }
        listening.completeExceptionally(new AssertionError("Loupe ended: " + output));
      });
      reader.setDaemon(true);
      reader.start();
      InetSocketAddress proxy = listening.get(120, TimeUnit.SECONDS);
      HttpClient client = HttpClient.newBuilder().proxy(ProxySelector.of(proxy)).build();
      HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + origin.getAddress().getPort() + "/blob")).timeout(Duration.ofSeconds(60))
          .build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(sha256(r.body())).isEqualTo(sha256(body));
      assertThat(output).anyMatch(l -> l.contains("(regular mode, epoll, TLS: BoringSSL)")
          || here.os() != Platform.Os.LINUX);
    } finally {
      loupe.destroy();
      loupe.waitFor(30, TimeUnit.SECONDS);
      origin.stop(0);
    }
  }

  @Test
  void theFatJarIsLeftAsItWas() throws Exception {
    // the plain java -jar app/target/loupe.jar keeps its natives for Netty's five platforms
    List<String> names = new ArrayList<>();
    try (JarFile jar = new JarFile(fatJar().toFile())) {
      jar.stream().map(JarEntry::getName).filter(NativeRules::isNative).forEach(names::add);
    }
    assertThat(names).contains("META-INF/native/libnetty_tcnative_linux_x86_64.so",
        "META-INF/native/netty_tcnative_windows_x86_64.dll", "META-INF/native/libnetty_quiche42_osx_aarch_64.jnilib");
  }

  private static String sha256(byte[] b) throws Exception {
    return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }
}
