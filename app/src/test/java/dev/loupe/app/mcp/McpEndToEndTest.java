package dev.loupe.app.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.app.control.LoupeJvm;
import dev.loupe.testing.TestOrigin;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loupe's MCP server end to end, with the MCP Java SDK's own client: over streamable HTTP at
 * {@code /mcp} of a real headless Loupe ({@code --control}), and over stdio with {@code loupe mcp}
 * in its own JVM, once starting its own headless Loupe and once attached (read-only) to the running
 * one. Real traffic goes through the proxy to a real origin.
 */
@Timeout(300)
class McpEndToEndTest {
  @TempDir static Path tmp;
  static TestOrigin origin;
  static LoupeJvm loupe;
  static Path conf;
  static String controlUrl;
  static String token;

  @BeforeAll
  static void start() throws Exception {
    origin = TestOrigin.http();
    conf = tmp.resolve("conf");
    loupe = LoupeJvm.start("--headless", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--confdir",
        conf.toString());
    loupe.proxyPort();
    Matcher control = loupe.controlLine();
    controlUrl = "http://" + control.group(1);
    token = control.group(2);
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

  static McpSyncClient httpClient(String bearer) {
    HttpRequest.Builder requests = HttpRequest.newBuilder();
    if (bearer != null) {
      requests.header("Authorization", "Bearer " + bearer);
    }
    HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(controlUrl)
        .endpoint("/mcp").requestBuilder(requests).build();
    return McpClient.sync(transport).requestTimeout(Duration.ofSeconds(120))
        .initializationTimeout(Duration.ofSeconds(30)).build();
  }

  static McpSyncClient stdioClient(List<String> stderr, String... mcpArgs) {
    List<String> args = new ArrayList<>(List.of("-Xmx256m", "-Dio.netty.leakDetection.level=paranoid", "-cp",
        System.getProperty("java.class.path"), "dev.loupe.app.Main", "mcp"));
    args.addAll(List.of(mcpArgs));
    ServerParameters params = ServerParameters.builder(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString()).args(args).build();
    StdioClientTransport transport = new StdioClientTransport(params, new JacksonMcpJsonMapper(McpScenario.JSON));
    transport.setStdErrorHandler(stderr::add);
    return McpClient.sync(transport).requestTimeout(Duration.ofSeconds(120))
        .initializationTimeout(Duration.ofSeconds(90)).build();
  }

  @Test
  void streamableHttpDoesTheWholePath() throws Exception {
    try (McpSyncClient mcp = httpClient(token)) {
      mcp.initialize();
      McpScenario s = new McpScenario(mcp, origin, "http");
      long id = s.run(tmp);
      s.badInput(id);
    }
    // every call is in the owner-only log, errors included
    Path log = conf.resolve(McpCallLog.FILE_NAME);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(log))).isEqualTo("rw-------");
    List<String> lines = Files.readAllLines(log);
    assertThat(lines).anyMatch(l -> l.contains(" http list_flows ") && l.endsWith("ms") && l.contains(" ok "));
    assertThat(lines).anyMatch(l -> l.contains(" http get_flow {\"flowId\":987654} error: no flow 987654"));
    assertThat(lines).anyMatch(l -> l.contains(" http read loupe://ca/certificate.pem ok"));
    assertThat(String.join("\n", lines)).doesNotContain("SECRET");
  }

  @Test
  void withoutTheTokenMcpIsRefused() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"curl\",\"version\":\"1\"}}}";
    for (String auth : new String[] {null, "Bearer " + "x".repeat(43)}) {
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(controlUrl + "/mcp"))
          .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
          .POST(HttpRequest.BodyPublishers.ofString(init));
      if (auth != null) {
        b.header("Authorization", auth);
      }
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(401);
      assertThat(r.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"loupe\"");
    }
    try (McpSyncClient anonymous = httpClient(null)) {
      assertThatThrownBy(anonymous::initialize).hasStackTraceContaining("McpHttpClientTransportAuthorizationException");
    }
    // with the token, a plain POST works, and a web page on another origin is refused
    HttpResponse<String> ok = http.send(HttpRequest.newBuilder(URI.create(controlUrl + "/mcp"))
        .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(init)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).contains("\"serverInfo\"").contains("\"loupe\"");
    HttpResponse<String> foreign = http.send(HttpRequest.newBuilder(URI.create(controlUrl + "/mcp"))
        .header("Authorization", "Bearer " + token).header("Origin", "https://evil.example")
        .POST(HttpRequest.BodyPublishers.ofString(init)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(foreign.statusCode()).isEqualTo(403);
    HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create(controlUrl + "/mcp"))
        .header("Authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(get.statusCode()).isEqualTo(405);
    HttpResponse<String> garbage = http.send(HttpRequest.newBuilder(URI.create(controlUrl + "/mcp"))
        .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString("{not json"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(garbage.statusCode()).isEqualTo(400);
    assertThat(garbage.body()).contains("-32700");
  }

  @Test
  void stdioStartsItsOwnHeadlessLoupeAndDoesTheWholePath() throws Exception {
    Path own = tmp.resolve("own-conf");
    List<String> stderr = new CopyOnWriteArrayList<>();
    try (McpSyncClient mcp = stdioClient(stderr, "--confdir", own.toString(), "--", "--listen", "127.0.0.1:0")) {
      mcp.initialize();
      assertThat(Files.readString(own.resolve("control.json"))).contains("\"url\"");
      McpScenario s = new McpScenario(mcp, origin, "stdio");
      long id = s.run(tmp);
      s.badInput(id);
    }
    // closing stdin stopped it, and its Loupe with it
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(own.resolve("control.json")));
    assertThat(String.join("\n", stderr)).contains("starting a headless Loupe").doesNotContain("LEAK");
    assertThat(Files.readAllLines(own.resolve(McpCallLog.FILE_NAME))).anyMatch(l -> l.contains(" stdio resume_flow "));
  }

  @Test
  void stdioAttachesToTheRunningLoupeAndReadOnlyRefusesWrites() throws Exception {
    List<String> stderr = new CopyOnWriteArrayList<>();
    try (McpSyncClient mcp = stdioClient(stderr, "--confdir", conf.toString(), "--mcp-read-only")) {
      mcp.initialize();
      new McpScenario(mcp, origin, "ro").readOnly(tmp);
      assertThat(String.join("\n", stderr)).contains("attached to the Loupe at " + controlUrl);
    }
  }
}
