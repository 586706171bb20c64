package dev.loupe.app.ctl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loupe.app.CliRun;
import dev.loupe.app.control.LoupeJvm;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loupe ctl} (the real command, run in this JVM) against a real headless Loupe in its own
 * JVM, found through its configuration directory, with real traffic through the proxy to a real
 * origin: search, read, body bytes, a breakpoint and an edited resume (the origin sees the edit),
 * replay, HAR; and the errors a user meets.
 */
@Timeout(180)
class CtlCommandTest {
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path tmp;
  static TestOrigin origin;
  static LoupeJvm loupe;
  static HttpClient client;
  static String conf;

  @BeforeAll
  static void start() throws Exception {
    origin = TestOrigin.http();
    conf = tmp.resolve("conf").toString();
    loupe = LoupeJvm.start("--headless", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--confdir", conf);
    int port = loupe.proxyPort();
    loupe.controlLine();
    client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port))).connectTimeout(Duration.ofSeconds(10)).build();
  }

  @AfterAll
  static void stop() throws Exception {
    if (loupe != null) {
      loupe.closeCheckingLeaks();
    }
    if (origin != null) {
      origin.close();
    }
  }

  static CliRun ctl(String... args) {
    String[] all = new String[args.length + 3];
    all[0] = "ctl";
    all[1] = "--confdir";
    all[2] = conf;
    System.arraycopy(args, 0, all, 3, args.length);
    return CliRun.of(all);
  }

  static CliRun ok(String... args) {
    CliRun r = ctl(args);
    assertThat(r.code()).as(String.join(" ", args) + "\n" + r.out() + r.err()).isZero();
    return r;
  }

  static CompletableFuture<HttpResponse<String>> post(String path, String body) {
    return client.sendAsync(HttpRequest.newBuilder(URI.create(origin.url() + path))
        .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theWholePathFromTheShell() throws Exception {
    assertThat(ok("status").out()).contains("proxy:").contains("caCertificate:");
    String body = "a body for ctl \u00e9";
    assertThat(post("/sha256?ctl", body).get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

    // search: a table, and the same as JSON
    JsonNode flows = Awaitility.await().atMost(Duration.ofSeconds(20))
        .until(() -> JSON.readTree(ok("--json", "flows", "-f", "~u ctl$ & status=200").out()), f -> f.size() == 1);
    long id = flows.get(0).get("id").asLong();
    String table = ok("flows", "--filter", "~u ctl$").out();
    assertThat(table.lines().findFirst().orElseThrow()).startsWith("ID").contains("METHOD").contains("URL");
    assertThat(table).contains(id + " ").contains("POST").contains("200").contains("/sha256?ctl");

    // read: the flow, and the request body's bytes
    String flow = ok("flow", String.valueOf(id)).out();
    assertThat(flow).contains("--- request: POST " + origin.url() + "/sha256?ctl").contains("--- response: HTTP/1.1 200")
        .contains("timings (ms):").contains("server connection: ");
    assertThat(ok("body", String.valueOf(id), "--request").out()).isEqualTo(body);
    Path bodyFile = tmp.resolve("response.bin");
    ok("body", String.valueOf(id), "-o", bodyFile.toString());
    byte[] sent = body.getBytes(StandardCharsets.UTF_8);
    assertThat(Files.readString(bodyFile)).isEqualTo(TestData.sha256(sent) + " " + sent.length);

    // a breakpoint, and a resume with an edited body that the origin sees
    String added = ok("breakpoints", "add", "~u /sha256\\?ctl-bp").out();
    String bpId = added.strip().substring("added breakpoint ".length());
    assertThat(ok("breakpoints").out()).contains(bpId).contains("~u /sha256\\?ctl-bp").contains("request");
    CompletableFuture<HttpResponse<String>> pending = post("/sha256?ctl-bp", "original");
    JsonNode paused = Awaitility.await().atMost(Duration.ofSeconds(30))
        .until(() -> JSON.readTree(ok("paused", "--json").out()), p -> p.size() == 1);
    long pausedId = paused.get(0).get("flowId").asLong();
    assertThat(ok("paused").out()).contains(pausedId + " ").contains("request").contains("/sha256?ctl-bp");
    assertThat(ok("resume", String.valueOf(pausedId), "--body", "edited from the shell", "-H",
        "Content-Type: text/plain", "-H", "X-Ctl: yes").out()).contains("resume: flow " + pausedId);
    byte[] edited = "edited from the shell".getBytes(StandardCharsets.UTF_8);
    assertThat(pending.get(30, TimeUnit.SECONDS).body()).isEqualTo(TestData.sha256(edited) + " " + edited.length);
    assertThat(origin.awaitSeen("ctl-bp").headers().get("X-Ctl")).isEqualTo("yes");
    assertThat(ok("breakpoints", "rm", bpId).out()).contains("removed breakpoint " + bpId);

    // replay, and send
    String replayed = ok("replay", String.valueOf(id)).out();
    assertThat(replayed).contains("replay of " + id).contains("200");
    assertThat(origin.seen().stream().filter(s -> s.uri().endsWith("/sha256?ctl")).count()).isEqualTo(2);
    assertThat(ok("send", origin.url() + "/status/201?ctl-send").out()).contains("201");

    // HAR to a file (owner-only) and to stdout
    Path har = tmp.resolve("ctl.har");
    ok("har", "-f", "~u ctl", "-o", har.toString());
    JsonNode doc = JSON.readTree(Files.readString(har));
    assertThat(doc.get("log").get("version").asText()).isEqualTo("1.2");
    assertThat(doc.get("log").get("entries").size()).isGreaterThanOrEqualTo(4);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(har))).isEqualTo("rw-------");
    assertThat(JSON.readTree(ok("har", "--filter", "~u ctl-send").out()).get("log").get("entries").size()).isEqualTo(1);

    assertThat(ok("ca", "--pem").out()).startsWith("-----BEGIN CERTIFICATE-----");
    assertThat(ok("connect", "env").out()).contains("export http_proxy=http://127.0.0.1:" + loupe.proxyPort());
  }

  @Test
  void errorsSayWhatIsWrong() throws Exception {
    CliRun bad = ctl("flows", "-f", "~nosuch x");
    assertThat(bad.code()).isEqualTo(1);
    assertThat(bad.err()).contains("bad filter").contains("(HTTP 400)");
    CliRun missing = ctl("flow", "987654");
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("no flow 987654");
    CliRun usage = ctl("resume");
    assertThat(usage.code()).isEqualTo(2);
    CliRun header = ctl("send", origin.url() + "/", "-H", "no colon");
    assertThat(header.code()).isEqualTo(2);
    assertThat(header.err()).contains("'Name: value'");
    CliRun nobody = CliRun.of("ctl", "--confdir", tmp.resolve("empty").toString(), "status");
    assertThat(nobody.code()).isEqualTo(1);
    assertThat(nobody.err()).contains("no Loupe with a control API runs").contains("--control");
    CliRun wrongToken = CliRun.of("ctl", "--api", "http://" + loupe.controlLine().group(1), "--token-file",
        write(tmp.resolve("wrong-token"), "x".repeat(43)).toString(), "status");
    assertThat(wrongToken.code()).isEqualTo(1);
    assertThat(wrongToken.err()).contains("missing or wrong token").contains("(HTTP 401)");
  }

  private static Path write(Path p, String s) throws Exception {
    Files.writeString(p, s);
    return p;
  }
}
