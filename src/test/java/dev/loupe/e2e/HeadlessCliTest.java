package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The real command line in its own JVM: {@code --headless} prints where it listens and where the
 * CA is, then a line per flow; SIGTERM writes the {@code --har} file; {@code ca path} and
 * {@code ca export} hand out the CA certificate; bad options and values exit 2 with a one-line
 * reason.
 */
@Timeout(180)
class HeadlessCliTest {
  private static final Duration START = Duration.ofSeconds(60);
  private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)\\b");
  private static final Pattern CA_LINE = Pattern.compile("^CA certificate: (.+)$");
  private static final Pattern CONTROL_LINE = Pattern.compile("^Control API on (http://\\S+) \\(token: (\\S+),");

  @TempDir static Path tmp;
  static TestOrigin http;
  static TestOrigin https;

  @BeforeAll
  static void origins() throws Exception {
    http = TestOrigin.http();
    https = TestOrigin.https();
  }

  @AfterAll
  static void stop() {
    http.close();
    https.close();
  }

  @Test
  void headlessSessionPrintsFlowsAndWritesHarOnSigterm() throws Exception {
    Path conf = tmp.resolve("headless-conf");
    Path originCa = tmp.resolve("origin-ca.pem");
    TestPki.shared().originCa().exportPem(originCa);
    Path har = tmp.resolve("headless.har");

    try (LoupeProcess loupe = LoupeProcess.start(
        List.of("-Xmx256m", "-Dio.netty.leakDetection.level=paranoid"),
        List.of("--headless", "--listen", "127.0.0.1:0", "--confdir", conf.toString(),
            "--trust-ca", originCa.toString(), "--har", har.toString()))) {
      int port = Integer.parseInt(loupe.awaitLine(LISTENING, START).group(1));
      Path caPem = Path.of(loupe.awaitLine(CA_LINE, START).group(1).trim());
      assertThat(caPem).isRegularFile();
      assertThat(caPem.toAbsolutePath().startsWith(conf.toAbsolutePath())).as("CA lives in --confdir").isTrue();

      HttpClient client = HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port)))
          .sslContext(TestPki.trusting(readCertificate(caPem)))
          .connectTimeout(Duration.ofSeconds(10))
          .build();

      String plain = http.url() + "/bytes/1000?cli=http";
      HttpResponse<byte[]> a = client.send(HttpRequest.newBuilder(URI.create(plain)).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      assertThat(a.body()).isEqualTo(TestData.bytes(1000));

      String tls = https.url() + "/headers?cli=https";
      HttpResponse<String> b = client.send(HttpRequest.newBuilder(URI.create(tls)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(b.statusCode()).as("%s", b.body()).isEqualTo(200);
      assertThat(b.sslSession()).isPresent();

      String upload = https.url() + "/sha256?cli=post";
      HttpResponse<String> c = client.send(HttpRequest.newBuilder(URI.create(upload))
          .POST(HttpRequest.BodyPublishers.ofByteArray(TestData.bytes(100_000))).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(c.body()).isEqualTo(TestData.sha256(100_000) + " 100000");

      String failing = "http://nosuch.invalid/cli?dns";
      HttpResponse<String> d = client.send(HttpRequest.newBuilder(URI.create(failing)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(d.statusCode()).isEqualTo(502);

      // time, method, full URL, status, size, duration, protocol per side, tier
      String time = "\\d\\d:\\d\\d:\\d\\d\\.\\d{3}";
      loupe.awaitLine(Pattern.compile("^" + time + " GET " + Pattern.quote(plain)
          + " 200 1000B \\S+ h1/h1 relay$"), START);
      loupe.awaitLine(Pattern.compile("^" + time + " GET " + Pattern.quote(tls) + " 200 \\S+ \\S+ h1/h1 relay$"), START);
      loupe.awaitLine(Pattern.compile("^" + time + " POST " + Pattern.quote(upload) + " 200 \\S+ \\S+ h1/h1 relay$"),
          START);
      loupe.awaitLine(Pattern.compile("^" + time + " GET " + Pattern.quote(failing)
          + " ERROR dns: DNS lookup failed for nosuch\\.invalid .* relay$"), START);

      loupe.terminate();
      int exit = loupe.awaitExit(Duration.ofSeconds(30));
      // Killed by SIGTERM after the shutdown hook ran: the JVM's status is 128 + 15.
      assertThat(exit).as("exit status after SIGTERM; stderr: %s", loupe.stderr()).isIn(0, 143);
      assertThat(loupe.stderr()).anyMatch(l -> l.contains("wrote 4 flows to " + har.toAbsolutePath()));
      assertThat(loupe.stderr()).noneMatch(l -> l.contains("LEAK"));

      assertThat(har).isRegularFile();
      try (var files = Files.list(har.getParent())) {
        assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
      }
      JsonNode doc = HarFiles.read(har);
      HarFiles.assertValid(doc);
      List<String> urls = new ArrayList<>();
      for (JsonNode e : doc.path("log").path("entries")) {
        urls.add(e.path("request").path("url").asText());
      }
      assertThat(urls).containsExactly(plain, tls, upload, failing);
      JsonNode failed = doc.path("log").path("entries").get(3);
      assertThat(failed.path("_errorKind").asText()).isEqualTo("DNS");

      // 'ca path' names the certificate the running proxy announced.
      LoupeProcess.Result path = LoupeProcess.run(START, "ca", "path", "--confdir", conf.toString());
      assertThat(path.stdout()).containsExactly(caPem.toString());
    }
  }

  /**
   * The window shows flows in its table and prints no line per flow (on the relay's critical path they cost a
   * quarter of its throughput, issue 19); when it cannot open (no display) Loupe goes on headless and prints them.
   */
  @Test
  void theWindowPrintsNoPerFlowLinesAndItsHeadlessFallbackDoes() throws Exception {
    Path originCa = tmp.resolve("window-origin-ca.pem");
    TestPki.shared().originCa().exportPem(originCa);
    String time = "\\d\\d:\\d\\d:\\d\\d\\.\\d{3}";

    // No display: the fallback prints the lines.
    Path noDisplayConf = tmp.resolve("no-display-conf");
    try (LoupeProcess loupe = LoupeProcess.start(List.of(), env -> {
      env.remove("DISPLAY");
      env.remove("WAYLAND_DISPLAY");
    }, List.of("-Xmx256m"), List.of("--listen", "127.0.0.1:0", "--confdir", noDisplayConf.toString(),
        "--trust-ca", originCa.toString()))) {
      int port = Integer.parseInt(loupe.awaitLine(LISTENING, START).group(1));
      loupe.awaitLine(Pattern.compile("cannot open the desktop window .*running headless"), START);
      String url = http.url() + "/bytes/10?fallback";
      assertThat(get(port, url).body()).isEqualTo(TestData.bytes(10));
      loupe.awaitLine(Pattern.compile("^" + time + " GET " + Pattern.quote(url) + " 200 10B \\S+ h1/h1 relay$"), START);
    }

    // The window (under Xvfb): the same flows, no line. The control API shows when both are recorded; a clean
    // exit then proves no line is on its way: the shutdown writes every line a per-flow printer has queued.
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/xvfb-run")), "xvfb-run is not installed");
    Path windowConf = tmp.resolve("window-conf");
    try (LoupeProcess loupe = LoupeProcess.start(List.of("xvfb-run", "-a"), env -> { }, List.of("-Xmx256m"),
        List.of("--listen", "127.0.0.1:0", "--confdir", windowConf.toString(), "--trust-ca", originCa.toString(),
            "--control", "127.0.0.1:0"))) {
      int port = Integer.parseInt(loupe.awaitLine(LISTENING, START).group(1));
      Matcher control = loupe.awaitLine(CONTROL_LINE, START);
      // The window has opened its session (the proxy and the control API answer before it does): a SIGTERM from
      // here on closes the session cleanly, which the "session saved" line below shows
      loupe.awaitLine(Pattern.compile("^Recording into "), START);
      String url = http.url() + "/bytes/10?window";
      assertThat(get(port, url).body()).isEqualTo(TestData.bytes(10));
      String again = http.url() + "/bytes/11?window";
      assertThat(get(port, again).body()).isEqualTo(TestData.bytes(11));
      awaitComplete(control.group(1), control.group(2), List.of(url, again));

      ProcessHandle jvm = loupe.process().toHandle().descendants()
          .filter(h -> h.info().command().map(c -> c.endsWith("/java")).orElse(false)).findFirst()
          .orElseThrow(() -> new AssertionError("no java process under xvfb-run"));
      jvm.destroy(); // SIGTERM to the JVM only: its shutdown hooks run while the display is still there
      jvm.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
      loupe.terminateAll();
      loupe.awaitExit(Duration.ofSeconds(30));
      assertThat(loupe.stderr()).as("the shutdown ran; stderr: %s", loupe.stderr())
          .anyMatch(l -> l.startsWith("Loupe: session saved to "));
      assertThat(loupe.stdout()).as("stdout of the window; stderr: %s", loupe.stderr())
          .noneMatch(l -> l.contains("cannot open the desktop window"))
          .noneMatch(l -> l.contains("?window"));
    }
  }

  /** Waits until the control API's {@code GET /flows} lists every one of {@code urls} as a complete flow. */
  private static void awaitComplete(String base, String token, List<String> urls) {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    HttpRequest list = HttpRequest.newBuilder(URI.create(base + "/flows")).header("Authorization", "Bearer " + token)
        .timeout(Duration.ofSeconds(30)).build();
    org.awaitility.Awaitility.await("flows " + urls + " complete").atMost(START).pollInterval(Duration.ofMillis(50))
        .untilAsserted(() -> {
          HttpResponse<String> r = client.send(list, HttpResponse.BodyHandlers.ofString());
          assertThat(r.statusCode()).as("GET /flows: %s", r.body()).isEqualTo(200);
          List<String> complete = new ArrayList<>();
          for (JsonNode f : new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body())) {
            if (f.path("state").asText().equals("complete")) {
              complete.add(f.path("url").asText());
            }
          }
          assertThat(complete).as("complete flows; GET /flows: %s", r.body()).containsAll(urls);
        });
  }

  private static HttpResponse<byte[]> get(int port, String url) throws Exception {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port))).connectTimeout(Duration.ofSeconds(10)).build();
    return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void caPathPrintsThePemPathAndExportWritesTheSameCertificate() throws Exception {
    Path conf = tmp.resolve("ca-conf");
    LoupeProcess.Result path = LoupeProcess.run(START, "ca", "path", "--confdir", conf.toString());
    assertThat(path.exitCode()).as("stderr: %s", path.stderr()).isZero();
    assertThat(path.stdout()).hasSize(1);
    Path pem = Path.of(path.stdout().get(0).trim());
    assertThat(pem).isRegularFile();
    assertThat(pem.toAbsolutePath().startsWith(conf.toAbsolutePath())).isTrue();
    X509Certificate ca = readCertificate(pem);
    assertThat(ca.getBasicConstraints()).as("a CA certificate").isGreaterThanOrEqualTo(0);

    // Asking again finds the same CA, never a new one.
    LoupeProcess.Result again = LoupeProcess.run(START, "ca", "path", "--confdir", conf.toString());
    assertThat(again.stdout()).containsExactlyElementsOf(path.stdout());
    assertThat(readCertificate(pem)).isEqualTo(ca);

    Path der = tmp.resolve("exported.der");
    LoupeProcess.Result d = LoupeProcess.run(START, "ca", "export", "--confdir", conf.toString(),
        "--format", "der", der.toString());
    assertThat(d.exitCode()).as("stderr: %s", d.stderr()).isZero();
    byte[] derBytes = Files.readAllBytes(der);
    assertThat(derBytes[0]).as("DER starts with a SEQUENCE tag, not PEM text").isEqualTo((byte) 0x30);
    assertThat(readCertificate(der)).isEqualTo(ca);
    assertThat(derBytes).isEqualTo(ca.getEncoded());

    Path exportedPem = tmp.resolve("exported.pem");
    LoupeProcess.Result p = LoupeProcess.run(START, "ca", "export", "--confdir", conf.toString(),
        "--format", "pem", exportedPem.toString());
    assertThat(p.exitCode()).as("stderr: %s", p.stderr()).isZero();
    String text = Files.readString(exportedPem);
    assertThat(text).startsWith("-----BEGIN CERTIFICATE-----").doesNotContain("PRIVATE KEY");
    assertThat(readCertificate(exportedPem)).isEqualTo(ca);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "unknown option            | --bogus                  | --bogus",
      "listen address not parsed | --listen nonsense        | --listen",
      "non-loopback without flag | --listen 0.0.0.0:8080    | --allow-remote",
      "listen port out of range  | --listen 127.0.0.1:70000 | --listen",
      "keep no flows             | --keep-flows 0           | --keep-flows",
  })
  void badOptionOrValueExits2WithOneLineReason(String name, String args, String mentioned) throws Exception {
    List<String> argv = new ArrayList<>(List.of(args.trim().split(" ")));
    argv.addAll(List.of("--confdir", tmp.resolve("usage-conf").toString()));
    LoupeProcess.Result r = LoupeProcess.run(START, argv.toArray(new String[0]));

    assertThat(r.exitCode()).as("exit status; stderr: %s", r.stderr()).isEqualTo(2);
    List<String> reasons = r.stderr().stream().filter(l -> !l.startsWith("Try 'loupe --help'")).toList();
    assertThat(reasons).as("one line of reason (plus at most the --help hint): %s", r.stderr()).hasSize(1);
    assertThat(reasons.get(0)).startsWith("loupe: ").contains(mentioned);
    assertThat(r.stderr()).as("no stack trace").noneMatch(l -> l.startsWith("\tat ") || l.contains("Exception"));
    assertThat(r.stdout()).as("nothing started").isEmpty();
  }

  private static X509Certificate readCertificate(Path file) throws Exception {
    try (InputStream in = Files.newInputStream(file)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }
}
