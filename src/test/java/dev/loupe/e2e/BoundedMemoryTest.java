package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bodies stream: a 1 GiB download and a 1 GiB upload pass byte-exact through an intercepting
 * Loupe whose JVM has 96 MiB of heap and 96 MiB of direct memory, with {@code --no-spill} (capture
 * keeps only the 1 MiB cap, nothing is buffered whole), and the proxy's peak resident set stays
 * far below a GiB.
 */
@Timeout(900)
class BoundedMemoryTest {
  static final long GIB = 1L << 30;
  static final long MAX_PEAK_RSS_KIB = 400L * 1024;

  @TempDir static Path tmp;
  static TestOrigin origin;
  static LoupeProcess loupe;
  static HttpClient client;
  static String expectedSha256;

  @BeforeAll
  static void start() throws Exception {
    origin = TestOrigin.https();
    Path originCa = tmp.resolve("origin-ca.pem");
    TestPki.shared().originCa().exportPem(originCa);
    loupe = LoupeProcess.start(
        List.of("-Xmx96m", "-XX:MaxDirectMemorySize=96m"),
        List.of("--headless", "--listen", "127.0.0.1:0", "--confdir", tmp.resolve("conf").toString(),
            "--trust-ca", originCa.toString(), "--no-spill"));
    int port = Integer.parseInt(loupe.awaitLine(
        Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)\\b"), Duration.ofSeconds(60)).group(1));
    Path caPem = Path.of(loupe.awaitLine(Pattern.compile("^CA certificate: (.+)$"), Duration.ofSeconds(60))
        .group(1).trim());
    X509Certificate ca;
    try (InputStream in = Files.newInputStream(caPem)) {
      ca = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port)))
        .sslContext(TestPki.trusting(ca))
        .connectTimeout(Duration.ofSeconds(10))
        .build();
    expectedSha256 = TestData.sha256(GIB);
  }

  @AfterAll
  static void stop() throws Exception {
    if (loupe != null) {
      loupe.terminate();
      loupe.awaitExit(Duration.ofSeconds(30));
      loupe.close();
    }
    if (origin != null) {
      origin.close();
    }
  }

  @Test
  void oneGibDownloadAndUploadOverHttpsWithBoundedProxyMemory() throws Exception {
    long startRssKib = statusKib(loupe.pid(), "VmRSS");
    long t0 = System.nanoTime();
    String download = origin.url() + "/bytes/" + GIB;
    HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(URI.create(download)).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValueAsLong("content-length")).hasValue(GIB);
    assertThat(TestData.sha256(r.body())).as("downloaded bytes").isEqualTo(expectedSha256);
    long t1 = System.nanoTime();

    String upload = origin.url() + "/sha256?n=" + GIB;
    HttpResponse<String> u = client.send(HttpRequest.newBuilder(URI.create(upload))
            .POST(HttpRequest.BodyPublishers.fromPublisher(
                HttpRequest.BodyPublishers.ofInputStream(() -> TestData.stream(GIB)), GIB))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(u.statusCode()).isEqualTo(200);
    assertThat(u.body()).as("what the origin received").isEqualTo(expectedSha256 + " " + GIB);
    long t2 = System.nanoTime();

    // Both flows printed with their full sizes (the capture is capped, the count is not).
    loupe.awaitLine(Pattern.compile(" GET " + Pattern.quote(download) + " 200 1\\.0G "), Duration.ofSeconds(30));
    loupe.awaitLine(Pattern.compile(" POST " + Pattern.quote(upload) + " 200 "), Duration.ofSeconds(30));

    long peakKib = statusKib(loupe.pid(), "VmHWM");
    long rssKib = statusKib(loupe.pid(), "VmRSS");
    System.out.printf("BoundedMemoryTest: download %.1f s, upload %.1f s, proxy VmRSS at start %d MiB,"
        + " VmHWM %d MiB, VmRSS after %d MiB%n",
        (t1 - t0) / 1e9, (t2 - t1) / 1e9, startRssKib / 1024, peakKib / 1024, rssKib / 1024);
    assertThat(peakKib).as("peak RSS of the proxy JVM (KiB) after moving 2 GiB").isLessThan(MAX_PEAK_RSS_KIB);
    assertThat(loupe.process().isAlive()).isTrue();
  }

  /** A "Name:   123 kB" line of /proc/PID/status, in KiB. */
  private static long statusKib(long pid, String name) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith(name + ":")) {
        return Long.parseLong(line.substring(name.length() + 1).replace("kB", "").trim());
      }
    }
    throw new AssertionError(name + " not in /proc/" + pid + "/status");
  }
}
