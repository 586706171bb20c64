package dev.loupe.installer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Dependency jars as the package ships them: signature files and the manifest's per-entry digests gone, the rest kept. */
@Timeout(30)
class PlatformJarsTest {
  @TempDir Path dir;

  /** A jar laid out as Bouncy Castle's signed, multi-release jars are. */
  private Path signedJar() throws IOException {
    Manifest m = new Manifest();
    Attributes main = m.getMainAttributes();
    main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
    main.put(new Attributes.Name("Multi-Release"), "true");
    main.put(new Attributes.Name("Automatic-Module-Name"), "org.bouncycastle.provider");
    main.put(new Attributes.Name("Bundle-SymbolicName"), "bcprov");
    Attributes a = new Attributes();
    a.put(new Attributes.Name("SHA-256-Digest"), "q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80=");
    m.getEntries().put("org/bouncycastle/A.class", a);
    Attributes b = new Attributes();
    b.put(new Attributes.Name("SHA1-Digest"), "q83vEjRWeJq83vEjRWeJq83vEjQ=");
    b.put(new Attributes.Name("Implementation-Title"), "kept: not a digest");
    m.getEntries().put("org/bouncycastle/B.class", b);
    Path jar = dir.resolve("bcprov-jdk18on-1.87.jar");
    try (OutputStream os = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(os, m)) {
      for (Map.Entry<String, String> e : Map.of("META-INF/LICENSE.md", "Bouncy Castle licence",
          "META-INF/BC2048KE.SF", "Signature-Version: 1.0\n", "META-INF/BC2048KE.DSA", "sig",
          "META-INF/versions/11/org/bouncycastle/C.class", "c11", "META-INF/services/java.security.Provider",
          "org.bouncycastle.jce.provider.BouncyCastleProvider\n", "org/bouncycastle/A.class", "a",
          "org/bouncycastle/B.class", "b").entrySet()) {
        out.putNextEntry(new JarEntry(e.getKey()));
        out.write(e.getValue().getBytes(StandardCharsets.UTF_8));
        out.closeEntry();
      }
    }
    return jar;
  }

  private static Map<String, String> contents(Path jar) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (JarFile j = new JarFile(jar.toFile())) {
      for (JarEntry e : j.stream().toList()) {
        if (!e.isDirectory() && !e.getName().equals(JarFile.MANIFEST_NAME)) {
          out.put(e.getName(), new String(j.getInputStream(e).readAllBytes(), StandardCharsets.UTF_8));
        }
      }
    }
    return out;
  }

  @Test
  void aSignedJarLosesItsSignatureAndDigestsAndKeepsEverythingElse() throws IOException {
    Path in = signedJar();
    Path out = dir.resolve("out.jar");
    assertThat(PlatformJars.filteredCopy(in, Platform.LINUX_X64, out)).isTrue();

    Map<String, String> expected = new TreeMap<>(contents(in));
    expected.remove("META-INF/BC2048KE.SF");
    expected.remove("META-INF/BC2048KE.DSA");
    assertThat(contents(out)).isEqualTo(expected).containsKey("META-INF/LICENSE.md");

    try (JarFile j = new JarFile(out.toFile())) {
      Manifest m = j.getManifest();
      Attributes main = m.getMainAttributes();
      assertThat(main.getValue("Multi-Release")).isEqualTo("true");
      assertThat(main.getValue("Automatic-Module-Name")).isEqualTo("org.bouncycastle.provider");
      assertThat(main.getValue("Bundle-SymbolicName")).isEqualTo("bcprov");
      assertThat(m.getEntries()).containsOnlyKeys("org/bouncycastle/B.class");
      assertThat(m.getEntries().get("org/bouncycastle/B.class"))
          .containsExactly(Map.entry(new Attributes.Name("Implementation-Title"), "kept: not a digest"));
      assertThat(j.isMultiRelease()).isTrue();
    }
    String text = new String(Files.readAllBytes(out), StandardCharsets.ISO_8859_1);
    assertThat(text).doesNotContain("q83vEjRWeJ");
  }

  @Test
  void aJarWithNothingToDropIsCopiedByteForByte() throws IOException {
    Manifest m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    m.getMainAttributes().put(new Attributes.Name("Automatic-Module-Name"), "io.netty.common");
    Path in = dir.resolve("netty-common.jar");
    try (OutputStream os = Files.newOutputStream(in); JarOutputStream out = new JarOutputStream(os, m)) {
      out.putNextEntry(new JarEntry("io/netty/util/Version.class"));
      out.write(1);
      out.closeEntry();
    }
    Path out = dir.resolve("copy.jar");
    assertThat(PlatformJars.filteredCopy(in, Platform.LINUX_X64, out)).isTrue();
    assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(in));
  }

  @Test
  void withoutDigestsLeavesADigestFreeManifestEqual() {
    Manifest m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    Attributes a = new Attributes();
    a.put(new Attributes.Name("Sealed"), "true");
    m.getEntries().put("org/x/", a);
    assertThat(PlatformJars.withoutDigests(m)).isEqualTo(m).isNotSameAs(m);
  }
}
