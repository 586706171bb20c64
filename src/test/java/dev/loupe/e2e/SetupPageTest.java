package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loupe.app.connect.CaDownloads;
import dev.loupe.ca.trust.CaCertificate;
import dev.loupe.engine.api.ProxyAuth;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestPki;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The setup page ({@code http://loupe.setup/}, answered by Loupe, never forwarded; and a plain
 * {@code GET /} on the listener): fetched with real curl through the proxy (HTTP, HTTPS by
 * CONNECT, SOCKS5), its downloads checked by parsing them with openssl, keytool and Python's
 * plistlib — the certificate in each is the CA's.
 */
@Timeout(120)
class SetupPageTest {
  static ProxyFixture proxy;
  static CaCertificate ca;
  @TempDir
  static Path dir;

  @BeforeAll
  static void start() throws Exception {
    ca = CaCertificate.of(TestPki.shared().loupeCa());
    // Authentication on for everyone: the setup page stays reachable without it (it is public).
    proxy = ProxyFixture.start(b -> b.setup(CaDownloads.of(TestPki.shared().loupeCa()))
        .proxyAuth(new ProxyAuth("u", "p", false)));
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  @Test
  void thePageThroughTheProxyNamesTheCaAndLinksEveryFormat() {
    ExternalCommand r = curl(List.of("-i"), "http://loupe.setup/");
    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(r.out()).startsWith("HTTP/1.1 200").containsIgnoringCase("content-type: text/html")
        .contains(ca.sha256Fingerprint()).contains("/cert/crt").contains("/cert/mobileconfig").contains("/cert/pem")
        .contains("Android").contains("iPhone").contains("Windows");
    assertThat(proxy.store().snapshot()).as("Loupe's own page is not a flow").isEmpty();
  }

  @Test
  void derDownloadParsesWithOpensslAndKeytoolAsTheCa() throws IOException {
    Path crt = download("http://loupe.setup/cert/crt", "ca.crt");
    assertThat(Files.readAllBytes(crt)).isEqualTo(ca.der());
    ExternalCommand x509 = ExternalCommand.run(List.of("openssl", "x509", "-inform", "DER", "-in", crt.toString(),
        "-noout", "-fingerprint", "-sha256"));
    assertThat(x509.exit()).as(x509.stderr()).isZero();
    assertThat(x509.out().trim()).endsWith("=" + ca.sha256Fingerprint());
    ExternalCommand keytool = ExternalCommand.run(List.of("keytool", "-printcert", "-file", crt.toString()));
    assertThat(keytool.exit()).as(keytool.toString()).isZero();
    assertThat(keytool.out()).contains("SHA256: " + ca.sha256Fingerprint());
    Path cer = download("http://loupe.setup/cert/cer", "ca.cer");
    assertThat(Files.readAllBytes(cer)).isEqualTo(ca.der());
  }

  @Test
  void pemDownloadParsesAsTheCa() throws IOException {
    Path pem = download("http://loupe.setup/cert/pem", "ca.pem");
    ExternalCommand x509 = ExternalCommand.run(List.of("openssl", "x509", "-in", pem.toString(), "-noout",
        "-fingerprint", "-sha256"));
    assertThat(x509.exit()).as(x509.stderr()).isZero();
    assertThat(x509.out().trim()).endsWith("=" + ca.sha256Fingerprint());
  }

  @Test
  void mobileConfigIsAPlistWithTheCaAsARootPayload() throws IOException {
    assumeTrue(ExternalCommand.available("python3"), "python3 is not installed");
    Path profile = download("http://loupe.setup/cert/mobileconfig", "loupe.mobileconfig");
    String script = String.join("\n",
        "import plistlib, sys",
        "p = plistlib.load(open(sys.argv[1], 'rb'))",
        "assert p['PayloadType'] == 'Configuration', p['PayloadType']",
        "assert p['PayloadVersion'] == 1",
        "root = p['PayloadContent'][0]",
        "assert root['PayloadType'] == 'com.apple.security.root', root['PayloadType']",
        "print(p['PayloadUUID'])",
        "print(root['PayloadContent'].hex())");
    ExternalCommand py = ExternalCommand.run(List.of("python3", "-c", script, profile.toString()));
    assertThat(py.exit()).as(py.toString()).isZero();
    String[] lines = py.out().trim().split("\n");
    assertThat(lines[1]).isEqualTo(HexFormat.of().formatHex(ca.der()));
    Path der = dir.resolve("from-profile.der");
    Files.write(der, HexFormat.of().parseHex(lines[1]));
    ExternalCommand x509 = ExternalCommand.run(List.of("openssl", "x509", "-inform", "DER", "-in", der.toString(),
        "-noout", "-fingerprint", "-sha256"));
    assertThat(x509.out().trim()).endsWith("=" + ca.sha256Fingerprint());
    // The same profile every time (stable UUIDs: a device replaces it rather than adding another).
    Path again = download("http://loupe.setup/cert/mobileconfig", "again.mobileconfig");
    assertThat(Files.readAllBytes(again)).isEqualTo(Files.readAllBytes(profile));
  }

  @Test
  void httpsAndSocksReachThePageToo() {
    ExternalCommand tls = curl(List.of(), "https://loupe.setup/cert/pem");
    assertThat(tls.exit()).as(tls.stderr()).isZero();
    assertThat(tls.out()).startsWith("-----BEGIN CERTIFICATE-----");
    ExternalCommand socks = ExternalCommand.run(List.of("curl", "-sS", "--max-time", "20",
        "--socks5-hostname", "127.0.0.1:" + proxy.port(), "http://loupe.setup/"));
    // SOCKS5 asks for credentials here: the page is public over HTTP, SOCKS has no per-host exception.
    assertThat(socks.exit()).isNotZero();
    ExternalCommand socksAuth = ExternalCommand.run(List.of("curl", "-sS", "--max-time", "20",
        "--socks5-hostname", "127.0.0.1:" + proxy.port(), "--proxy-user", "u:p",
        "--cacert", TestPki.shared().loupeCa().certificatePath().toString(), "https://loupe.setup/"));
    assertThat(socksAuth.exit()).as(socksAuth.stderr()).isZero();
    assertThat(socksAuth.out()).contains(ca.sha256Fingerprint());
  }

  @Test
  void aPlainGetOnTheListenerShowsThePageWithTheProxyToSet() throws IOException {
    try (Socket s = proxy.socket()) {
      s.getOutputStream().write(("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + proxy.port() + "\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      String page = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(page).startsWith("HTTP/1.1 200").contains("<code>127.0.0.1:" + proxy.port() + "</code>")
          .contains(ca.sha256Fingerprint());
    }
    try (Socket s = proxy.socket()) {
      s.getOutputStream().write("HEAD /cert/crt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII));
      String head = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      assertThat(head.toLowerCase(Locale.ROOT)).contains("content-length: " + ca.der().length)
          .contains("content-disposition: attachment; filename=\"loupe-ca.crt\"").endsWith("\r\n\r\n");
    }
  }

  @Test
  void otherMethodsAndPathsAreRefusedAndNothingIsForwarded() {
    ExternalCommand post = curl(List.of("-i", "-d", "x=1"), "http://loupe.setup/");
    assertThat(post.out()).startsWith("HTTP/1.1 405");
    ExternalCommand missing = curl(List.of("-i"), "http://loupe.setup/nope");
    assertThat(missing.out()).startsWith("HTTP/1.1 404");
    ExternalCommand keepAlive = curl(List.of("-i"), "http://loupe.setup/cert/pem", "http://loupe.setup/");
    assertThat(keepAlive.out()).contains("-----BEGIN CERTIFICATE-----").contains("<h1>Loupe setup</h1>");
    assertThat(keepAlive.stderr()).doesNotContain("Connection died");
    assertThat(proxy.store().snapshot()).isEmpty();
  }

  private static Path download(String url, String name) throws IOException {
    Path out = dir.resolve(name);
    ExternalCommand r = curl(List.of("-o", out.toString()), url);
    assertThat(r.exit()).as(r.stderr()).isZero();
    return out;
  }

  private static ExternalCommand curl(List<String> extra, String... urls) {
    assumeTrue(ExternalCommand.available("curl"), "curl is not installed");
    List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "20", "--noproxy", "",
        "--proxy", "http://127.0.0.1:" + proxy.port(),
        "--cacert", TestPki.shared().loupeCa().certificatePath().toString()));
    cmd.addAll(extra);
    cmd.addAll(List.of(urls));
    return ExternalCommand.run(cmd, Map.of(), null, 60);
  }
}
