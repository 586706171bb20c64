package dev.loupe.app.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a real headless run (CA created, a leaf minted for an HTTPS origin reached through CONNECT,
 * the control API used, a body spilled to disk, a HAR written on SIGTERM), every file Loupe wrote
 * that can hold a secret is readable by its owner alone (0600) and every directory it made is 0700:
 * the whole config directory is walked, so a new file added later is checked too. Only the CA
 * certificate may be world-readable (it is what clients must trust), and nothing is group or
 * world writable.
 */
@Timeout(180)
class ConfdirPermissionsTest {
  private static final Set<PosixFilePermission> OWNER_RW = PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> OWNER_RWX = PosixFilePermissions.fromString("rwx------");
  private static final Set<String> PUBLIC = Set.of("ca-cert.pem");

  @TempDir Path tmp;

  @Test
  void everyFileLoupeWritesIsOwnerOnly() throws Exception {
    Assumptions.assumeTrue(FileSystems.getDefault().supportedFileAttributeViews().contains("posix"));
    Path confdir = tmp.resolve("conf");
    Path har = tmp.resolve("session.har");
    FileTime started = FileTime.fromMillis(System.currentTimeMillis() - 1000);
    try (TestOrigin origin = TestOrigin.https()) {
      LoupeJvm loupe = LoupeJvm.start("--headless", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
          "--confdir", confdir.toString(), "--har", har.toString(), "--body-cap", "1KiB",
          "--trust-ca", TestPki.shared().originCa().certificatePath().toString());
      try {
        int proxyPort = loupe.proxyPort();
        var control = loupe.controlLine();
        ControlClient api = new ControlClient(control.group(1), control.group(2));
        assertThat(api.put("/rules", "[{\"filter\": \"~u /never\", \"action\": {\"type\": \"block\","
            + " \"mode\": \"CLOSE\"}}]").status()).isEqualTo(200);
        HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxyPort)))
            .sslContext(clientTrusting(confdir.resolve("ca-cert.pem")))
            .connectTimeout(Duration.ofSeconds(10))
            .build();
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(origin.url("localhost") + "/bytes/50000"))
            .header("Authorization", "Bearer secret-token").build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).hasSize(50_000);
        // The body went past the 1 KiB cap: its tail is in a spill file (in java.io.tmpdir) right now.
        List<String> spills = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
          s.filter(p -> p.getFileName().toString().startsWith("loupe-body-")).filter(p -> modifiedSince(p, started))
              .forEach(p -> spills.add(p + " " + permissions(p)));
        }
        assertThat(spills).as("spill files of this run").isNotEmpty()
            .allSatisfy(line -> assertThat(line).endsWith(" rw-------"));
      } finally {
        loupe.close(); // SIGTERM: the HAR is written on the way out
      }
    }
    assertThat(har).exists();
    assertThat(Files.getPosixFilePermissions(har)).as("the HAR holds cookies and tokens").isEqualTo(OWNER_RW);

    List<String> seen = new ArrayList<>();
    List<String> wrong = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(confdir)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
        String name = p.getFileName().toString();
        seen.add(confdir.relativize(p) + " " + PosixFilePermissions.toString(perms));
        boolean ok = Files.isDirectory(p) ? perms.equals(OWNER_RWX)
            : PUBLIC.contains(name) ? !perms.contains(PosixFilePermission.GROUP_WRITE)
                && !perms.contains(PosixFilePermission.OTHERS_WRITE)
            : perms.equals(OWNER_RW);
        if (!ok) {
          wrong.add(confdir.relativize(p) + " " + PosixFilePermissions.toString(perms));
        }
      }
    }
    assertThat(seen).as("what the run left in the config directory")
        .anyMatch(l -> l.startsWith("ca-key.pem ")).anyMatch(l -> l.startsWith("control-token "));
    assertThat(wrong).as("files or directories not owner-only, of %s", seen).isEmpty();
  }

  private static boolean modifiedSince(Path p, FileTime t) {
    try {
      return Files.getLastModifiedTime(p).compareTo(t) >= 0;
    } catch (IOException gone) {
      return false;
    }
  }

  private static String permissions(Path p) {
    try {
      return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    } catch (IOException gone) {
      return "gone";
    }
  }

  private static javax.net.ssl.SSLContext clientTrusting(Path caPem) throws Exception {
    java.security.cert.X509Certificate ca;
    try (var in = Files.newInputStream(caPem)) {
      ca = (java.security.cert.X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
          .generateCertificate(in);
    }
    java.security.KeyStore ks = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
    ks.load(null, null);
    ks.setCertificateEntry("loupe", ca);
    javax.net.ssl.TrustManagerFactory tmf =
        javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }
}
