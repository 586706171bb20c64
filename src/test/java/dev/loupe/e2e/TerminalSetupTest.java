package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loupe.app.connect.ClientFiles;
import dev.loupe.app.connect.ClientListeners;
import dev.loupe.app.connect.ConnectService;
import dev.loupe.app.connect.TerminalSetup;
import dev.loupe.engine.flow.Flow;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The terminal setup the window copies (its connect port's {@code terminalSetup("bash")}), applied
 * in a real shell: curl, Python (urllib and requests), Node (trusting
 * Loupe through {@code NODE_EXTRA_CA_CERTS}; Node 20 has no proxy variables for {@code fetch}, so
 * the {@code https} module over a CONNECT tunnel it opens itself) and a Java {@code HttpClient}
 * (through {@code JAVA_TOOL_OPTIONS}) fetch an HTTPS body through Loupe, each verifying the
 * certificate against Loupe's CA — a control run without the CA settings fails verification — and
 * each appears as a decrypted flow in the store the window shows. zsh and fish read their own syntax (when installed).
 */
@Timeout(240)
class TerminalSetupTest {
  static TestOrigin origin;
  static ProxyFixture proxy;
  @TempDir
  static Path dir;
  static Path setup;

  @BeforeAll
  static void start() throws Exception {
    origin = TestOrigin.h2AndH1();
    proxy = ProxyFixture.start();
    Path confdir = Files.createDirectories(dir.resolve("conf"));
    Files.copy(TestPki.shared().loupeCa().certificatePath(), confdir.resolve("ca-cert.pem"));
    // What the window's "Terminal ▾ › Copy setup › bash" copies (ConnectService is its port).
    ConnectService window = new ConnectService(proxy::engine, proxy.engine()::config, next -> proxy.engine(),
        new ClientListeners(proxy::engine), confdir, TestPki.shared().loupeCa());
    setup = dir.resolve("setup.sh");
    Files.writeString(setup, window.terminalSetup("bash"));
    assertThat(Files.readString(setup)).contains("http://127.0.0.1:" + proxy.port());
  }

  @AfterAll
  static void stop() {
    proxy.close();
    origin.close();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"curl", "python3 urllib", "python3 requests", "node https", "java HttpClient"})
  void aClientInTheSetUpShellFetchesHttpsThroughLoupeVerifyingLoupesCa(String client) throws IOException {
    if (client.equals("python3 requests")) {
      assumeTrue(bash("python3 -c 'import requests'").exit() == 0, "Python requests is not installed");
    } else {
      assumeTrue(ExternalCommand.available(client.split(" ")[0]), client + " is not installed");
    }
    int size = 40_000 + client.length(); // a path of its own per client
    String url = origin.url() + "/bytes/" + size;
    String command = command(client, url);
    ExternalCommand r = bash(". " + setup + " && " + command);
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out().trim()).isEqualTo(TestData.sha256(size));
    Flow f = proxy.awaitFlow("/bytes/" + size);
    assertThat(f.response().status()).isEqualTo(200);
    assertThat(f.clientConnection().tls()).as("decrypted by Loupe").isNotNull();
    // Control: the proxy variables alone (no CA settings) fail certificate verification.
    ExternalCommand control = bash(". " + setup + " && unset SSL_CERT_FILE CURL_CA_BUNDLE REQUESTS_CA_BUNDLE"
        + " NODE_EXTRA_CA_CERTS JAVA_TOOL_OPTIONS && export JAVA_TOOL_OPTIONS='-Dhttps.proxyHost=127.0.0.1"
        + " -Dhttps.proxyPort=" + proxy.port() + " -Dhttp.nonProxyHosts=' && " + command(client, url + "?control"));
    assertThat(control.exit()).as("without Loupe's CA: " + control).isNotZero();
  }

  private static String command(String client, String url) throws IOException {
    return switch (client) {
      case "curl" -> "curl -sS -f '" + url + "' | sha256sum | cut -d' ' -f1";
      case "python3 urllib" -> "python3 -c 'import hashlib,sys,urllib.request as u;"
          + " print(hashlib.sha256(u.urlopen(sys.argv[1]).read()).hexdigest())' '" + url + "'";
      case "python3 requests" -> "python3 -c 'import hashlib,sys,requests;"
          + " r=requests.get(sys.argv[1]); r.raise_for_status(); print(hashlib.sha256(r.content).hexdigest())' '"
          + url + "'";
      case "node https" -> "node " + script("client.js", NODE) + " '" + url + "'";
      default -> javaBin() + " " + script("Fetch.java", JAVA) + " '" + url + "'"; // "java HttpClient"
    };
  }

  private static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static Path script(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    if (!Files.exists(p)) {
      Files.writeString(p, text);
    }
    return p;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"zsh", "fish"})
  void otherShellsReadTheirSetup(String shell) throws IOException {
    assumeTrue(ExternalCommand.available(shell), shell + " is not installed");
    TerminalSetup.Shell s = TerminalSetup.Shell.parse(shell);
    ClientFiles files = ClientFiles.prepare(dir.resolve("conf"), TestPki.shared().loupeCa());
    Path script = dir.resolve("setup." + shell);
    Files.writeString(script, TerminalSetup.script(s, new TerminalSetup.Target(proxy.address(), "u s'er", "p\"a$s",
        files)));
    ExternalCommand r = ExternalCommand.run(List.of(shell, "-c", "source " + script + "; echo $https_proxy;"
        + " echo $JAVA_TOOL_OPTIONS; curl -sS -o /dev/null -w '%{http_code}' " + origin.url() + "/bytes/" + (10 + shell.length())),
        env(), null, 60);
    assertThat(r.exit()).as(r.toString()).isZero();
    String[] lines = r.out().split("\n");
    assertThat(lines[0]).isEqualTo("http://u%20s%27er:p%22a%24s@127.0.0.1:" + proxy.port());
    assertThat(lines[1]).contains("-Djavax.net.ssl.trustStore=" + files.trustStore());
    assertThat(lines[2]).isEqualTo("200");
    ExternalCommand unset = ExternalCommand.run(List.of(shell, "-c", "source " + script + "; "
        + TerminalSetup.unset(s, new TerminalSetup.Target(proxy.address(), null, null, files)).trim()
        + "; echo \"[$https_proxy][$SSL_CERT_FILE]\""), env(), null, 60);
    assertThat(unset.out().trim()).isEqualTo("[][]");
  }

  @Test
  void bashUnsetRemovesEveryVariable() throws IOException {
    ClientFiles files = ClientFiles.prepare(dir.resolve("conf"), TestPki.shared().loupeCa());
    String unset = TerminalSetup.unset(TerminalSetup.Shell.BASH, new TerminalSetup.Target(proxy.address(), null, null,
        files));
    ExternalCommand r = bash(". " + setup + " && " + unset.trim() + " && env | grep -ciE"
        + " '^(https?_proxy|SSL_CERT_FILE|CURL_CA_BUNDLE|NODE_EXTRA_CA_CERTS|JAVA_TOOL_OPTIONS|npm_config)' || true");
    assertThat(r.out().trim()).isEqualTo("0");
  }

  /** {@code bash -c CMD} with no proxy or CA variables inherited from this JVM's environment. */
  private static ExternalCommand bash(String cmd) {
    return ExternalCommand.run(List.of("bash", "-c", "set -o pipefail; " + cmd), env(), null, 90);
  }

  private static Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    for (String v : List.of("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy",
        "NO_PROXY", "no_proxy", "SSL_CERT_FILE", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
        "JAVA_TOOL_OPTIONS")) {
      env.put(v, null);
    }
    return env;
  }

  /** Node 20: https over a CONNECT tunnel it opens itself (no proxy variables for fetch there). */
  private static final String NODE = String.join("\n",
      "const http = require('http'), tls = require('tls'), https = require('https'), crypto = require('crypto');",
      "const proxy = new URL(process.env.https_proxy), target = new URL(process.argv[2]);",
      "const connect = http.request({host: proxy.hostname, port: proxy.port, method: 'CONNECT',",
      "  path: target.hostname + ':' + target.port});",
      "connect.on('connect', (res, socket) => {",
      "  if (res.statusCode !== 200) { console.error('CONNECT ' + res.statusCode); process.exit(2); }",
      "  const req = https.get({host: target.hostname, port: target.port, path: target.pathname + target.search,",
      "    createConnection: () => tls.connect({socket, host: target.hostname})}, r => {",
      "    const h = crypto.createHash('sha256');",
      "    r.on('data', d => h.update(d)).on('end', () => { console.log(h.digest('hex')); process.exit(0); });",
      "  });",
      "  req.on('error', e => { console.error(e.message); process.exit(3); });",
      "});",
      "connect.on('error', e => { console.error(e.message); process.exit(4); });",
      "connect.end();");

  /** Java: the default ProxySelector and SSLContext, both set up by JAVA_TOOL_OPTIONS. */
  private static final String JAVA = String.join("\n",
      "import java.net.*; import java.net.http.*; import java.security.MessageDigest; import java.util.HexFormat;",
      "public class Fetch { public static void main(String[] a) throws Exception {",
      "  HttpClient c = HttpClient.newBuilder().proxy(ProxySelector.getDefault()).build();",
      "  HttpResponse<byte[]> r = c.send(HttpRequest.newBuilder(URI.create(a[0])).build(),",
      "      HttpResponse.BodyHandlers.ofByteArray());",
      "  if (r.statusCode() != 200) { System.exit(2); }",
      "  System.out.println(HexFormat.of().formatHex(MessageDigest.getInstance(\"SHA-256\").digest(r.body())));",
      "} }");
}
