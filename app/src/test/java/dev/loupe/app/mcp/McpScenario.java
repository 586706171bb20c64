package dev.loupe.app.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * What an agent does with Loupe's MCP server, driven by the SDK's own client over whichever
 * transport it was built on: list the tools, send real traffic through the proxy to a real origin,
 * search it, read a flow, stop a request at a breakpoint and resume it edited (the origin sees the
 * edit), replay, export HAR; and bad input of every kind, after which the server still serves.
 */
final class McpScenario {
  static final ObjectMapper JSON = new ObjectMapper();
  static final List<String> ALL_TOOLS = List.of("proxy_status", "connect_client", "list_flows", "get_flow", "get_body",
      "export_har", "replay_flow", "send_request", "list_rules", "add_rule", "remove_rule", "list_breakpoints",
      "add_breakpoint", "remove_breakpoint", "list_paused", "resume_flow", "abort_flow", "answer_flow");
  static final List<String> WRITE_TOOLS = List.of("replay_flow", "send_request", "add_rule", "remove_rule",
      "add_breakpoint", "remove_breakpoint", "resume_flow", "abort_flow", "answer_flow");

  private final McpSyncClient mcp;
  private final TestOrigin origin;
  private final String tag;

  McpScenario(McpSyncClient mcp, TestOrigin origin, String tag) {
    this.mcp = mcp;
    this.origin = origin;
    this.tag = tag;
  }

  McpSchema.CallToolResult call(String tool, Map<String, Object> args) {
    return mcp.callTool(new McpSchema.CallToolRequest(tool, args));
  }

  /** The text of a successful call. */
  String ok(String tool, Map<String, Object> args) {
    McpSchema.CallToolResult r = call(tool, args);
    assertThat(r.isError()).as(tool + " " + args + ": " + text(r)).isFalse();
    return text(r);
  }

  JsonNode okJson(String tool, Map<String, Object> args) {
    return json(ok(tool, args));
  }

  /** The text of a call that must fail as an error result. */
  String error(String tool, Map<String, Object> args) {
    McpSchema.CallToolResult r = call(tool, args);
    assertThat(r.isError()).as(tool + " " + args + " should fail: " + text(r)).isTrue();
    return text(r);
  }

  static String text(McpSchema.CallToolResult r) {
    return ((McpSchema.TextContent) r.content().get(0)).text();
  }

  static JsonNode json(String s) {
    try {
      return JSON.readTree(s);
    } catch (IOException e) {
      throw new UncheckedIOException(s, e);
    }
  }

  /** A client whose proxy is Loupe's, as proxy_status reports it. */
  HttpClient viaProxy() {
    String proxy = okJson("proxy_status", Map.of()).get("proxy").asText();
    int port = Integer.parseInt(proxy.substring(proxy.lastIndexOf(':') + 1));
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port))).connectTimeout(Duration.ofSeconds(10)).build();
  }

  /** The whole path: returns the id of the first flow it captured. */
  long run(Path tmp) throws Exception {
    assertThat(mcp.listTools().tools()).extracting(McpSchema.Tool::name).containsExactlyInAnyOrderElementsOf(ALL_TOOLS);
    HttpClient client = viaProxy();

    // traffic with secrets in a header, a cookie and the query
    HttpResponse<String> plain = client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/status/200?t=" + tag
            + "&api_key=SECRET-QUERY")).header("Authorization", "Bearer SECRET-TOKEN").header("Cookie", "sid=SECRET-COOKIE")
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(plain.statusCode()).isEqualTo(200);

    // search by filter (the flow completes just after the client has its answer)
    JsonNode found = Awaitility.await().atMost(Duration.ofSeconds(20)).until(
        () -> okJson("list_flows", Map.of("filter", "~u t=" + tag + " & status=200")), l -> l.get("count").asInt() == 1);
    JsonNode line = found.get("flows").get(0);
    assertThat(line.get("url").asText()).contains("api_key=[REDACTED]").doesNotContain("SECRET");
    long id = line.get("id").asLong();

    // read it: heads, body, timings, connection; secrets hidden
    String flowText = ok("get_flow", Map.of("flowId", id));
    assertThat(flowText).doesNotContain("SECRET");
    JsonNode flow = json(flowText);
    assertThat(flow.get("request").get("headers").toString()).contains("[\"Authorization\",\"Bearer [REDACTED]\"]")
        .contains("[\"Cookie\",\"[REDACTED]\"]");
    assertThat(flow.get("response").get("status").asInt()).isEqualTo(200);
    assertThat(flow.get("response").get("body").asText()).isEqualTo("status 200");
    assertThat(flow.get("timings").get("totalMs").asDouble()).isGreaterThan(0);
    assertThat(flow.get("serverConnection").get("remoteAddress").asText()).endsWith(":" + origin.port());

    breakpointAndEditedResume(client);
    breakpointAndAnswer(client);

    // replay: a new flow marked as a replay, which the origin sees (with the real, unredacted credentials)
    JsonNode replay = okJson("replay_flow", Map.of("flowId", id));
    assertThat(replay.get("replayOf").asLong()).isEqualTo(id);
    assertThat(replay.get("status").asInt()).isEqualTo(200);
    assertThat(origin.seen().stream().filter(s -> s.uri().contains("t=" + tag + "&")).toList()).hasSize(2)
        .allSatisfy(s -> assertThat(s.headers().get("Authorization")).isEqualTo("Bearer SECRET-TOKEN"));

    // paging: the oldest page says there is more; newest=true gives the latest flow
    JsonNode first = okJson("list_flows", Map.of("limit", 1));
    assertThat(first.get("more").asText()).contains("since=" + first.get("lastId").asLong());
    JsonNode latest = okJson("list_flows", Map.of("limit", 1, "newest", true));
    assertThat(latest.get("flows").get(0).get("id").asLong()).isGreaterThanOrEqualTo(replay.get("id").asLong());

    // compose, and how to connect a client
    JsonNode sent = okJson("send_request", Map.of("url", origin.url() + "/status/201?t=" + tag + "-send"));
    assertThat(sent.get("status").asInt()).isEqualTo(201);
    assertThat(origin.awaitSeen(tag + "-send").method()).isEqualTo("GET");
    String proxy = okJson("proxy_status", Map.of()).get("proxy").asText();
    assertThat(ok("connect_client", Map.of("client", "curl"))).contains("curl --proxy http://" + proxy + " --cacert ");

    // HAR, inline and to a file
    String har = ok("export_har", Map.of("filter", "~u " + tag));
    assertThat(har).doesNotContain("SECRET");
    JsonNode doc = json(har);
    assertThat(doc.get("log").get("version").asText()).isEqualTo("1.2");
    assertThat(doc.get("log").get("creator").get("name").asText()).isEqualTo("Loupe");
    assertThat(doc.get("log").get("entries").size()).isGreaterThanOrEqualTo(3);
    Path file = tmp.resolve(tag + ".har");
    JsonNode written = okJson("export_har", Map.of("filter", "~u " + tag, "path", file.toString()));
    assertThat(written.get("entries").asInt()).isEqualTo(doc.get("log").get("entries").size());
    assertThat(json(Files.readString(file)).get("log").get("entries").size()).isEqualTo(written.get("entries").asInt());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");

    // resources: recent flows and the CA certificate
    String recent = ((McpSchema.TextResourceContents) mcp.readResource(
        new McpSchema.ReadResourceRequest("loupe://flows/recent")).contents().get(0)).text();
    assertThat(json(recent).toString()).contains("\"id\":" + id);
    String pem = ((McpSchema.TextResourceContents) mcp.readResource(
        new McpSchema.ReadResourceRequest("loupe://ca/certificate.pem")).contents().get(0)).text();
    assertThat(pem).startsWith("-----BEGIN CERTIFICATE-----");
    return id;
  }

  private void breakpointAndEditedResume(HttpClient client) throws Exception {
    String bpId = okJson("add_breakpoint", Map.of("filter", "~u /sha256\\?bp-" + tag)).get("id").asText();
    CompletableFuture<HttpResponse<String>> pending = client.sendAsync(HttpRequest.newBuilder(
            URI.create(origin.url() + "/sha256?bp-" + tag)).header("Authorization", "Bearer SECRET-PAUSED")
        .POST(HttpRequest.BodyPublishers.ofString("the client's body")).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
    JsonNode paused = Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
      for (JsonNode p : okJson("list_paused", Map.of())) {
        if (p.get("request").get("url").asText().contains("bp-" + tag)) {
          return p;
        }
      }
      return null;
    }, p -> p != null);
    assertThat(paused.get("phase").asText()).isEqualTo("request");
    assertThat(paused.toString()).doesNotContain("SECRET");
    assertThat(origin.seen()).noneMatch(s -> s.uri().contains("bp-" + tag));
    // the agent edits the body and sends the (redacted) headers back with one more: the real token goes out
    List<Object> headers = new java.util.ArrayList<>();
    paused.get("request").get("headers").forEach(h -> headers.add(List.of(h.get(0).asText(), h.get(1).asText())));
    headers.add(List.of("X-Edited-By", "mcp"));
    String edited = "edited through MCP (" + tag + "), longer than the client's";
    JsonNode resumed = okJson("resume_flow", Map.of("flowId", paused.get("flowId").asLong(), "body", edited,
        "headers", headers));
    assertThat(resumed.get("released").asText()).isEqualTo("resume");
    HttpResponse<String> r = pending.get(30, TimeUnit.SECONDS);
    byte[] sent = edited.getBytes(StandardCharsets.UTF_8);
    assertThat(r.body()).as("the origin got the edited body").isEqualTo(TestData.sha256(sent) + " " + sent.length);
    TestOrigin.Seen seen = origin.awaitSeen("bp-" + tag);
    assertThat(seen.headers().get("X-Edited-By")).isEqualTo("mcp");
    assertThat(seen.headers().get("Authorization")).isEqualTo("Bearer SECRET-PAUSED");
    ok("remove_breakpoint", Map.of("id", bpId));
    assertThat(okJson("list_breakpoints", Map.of()).toString()).doesNotContain(bpId);
  }

  private void breakpointAndAnswer(HttpClient client) throws Exception {
    String bpId = okJson("add_breakpoint", Map.of("filter", "~u ans-" + tag)).get("id").asText();
    CompletableFuture<HttpResponse<String>> pending = client.sendAsync(HttpRequest.newBuilder(
        URI.create(origin.url() + "/status/200?ans-" + tag)).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
    long id = Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
      for (JsonNode p : okJson("list_paused", Map.of())) {
        if (p.get("request").get("url").asText().contains("ans-" + tag)) {
          return p.get("flowId").asLong();
        }
      }
      return -1L;
    }, i -> i >= 0);
    assertThat(okJson("answer_flow", Map.of("flowId", id, "status", 418, "body", "answered by MCP"))
        .get("released").asText()).isEqualTo("answer");
    HttpResponse<String> r = pending.get(30, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(418);
    assertThat(r.body()).isEqualTo("answered by MCP");
    assertThat(origin.seen()).noneMatch(s -> s.uri().contains("ans-" + tag));
    assertThat(error("answer_flow", Map.of("flowId", id))).contains("is not paused");
    ok("remove_breakpoint", Map.of("id", bpId));
  }

  /** Bad input of each kind is a clear error, and the server goes on serving. */
  void badInput(long flowId) {
    assertThatThrownBy(() -> call("no_such_tool", Map.of())).isInstanceOf(McpError.class)
        .satisfies(e -> assertThat(((McpError) e).getJsonRpcError().message() + " "
            + ((McpError) e).getJsonRpcError().data()).contains("Unknown tool").contains("no_such_tool"));
    assertThat(error("list_flows", Map.of("limit", "ten"))).contains("limit").contains("integer");
    assertThat(error("list_flows", Map.of("filtr", "~d x"))).contains("unknown argument \"filtr\"");
    assertThat(error("get_flow", Map.of())).contains("flowId is required");
    assertThat(error("list_flows", Map.of("filter", "~nosuch x"))).contains("bad filter");
    assertThat(error("get_flow", Map.of("flowId", 987654))).contains("no flow 987654");
    assertThat(error("get_body", Map.of("flowId", flowId, "length", 5_000_000))).contains("length")
        .contains("at most 1048576");
    assertThat(error("export_har", Map.of("maxInlineBytes", 100))).contains("over the inline limit of 100 bytes");
    assertThat(error("add_rule", Map.of("rule", Map.of("filter", "~d x", "action", Map.of("type", "teleport")))))
        .containsIgnoringCase("teleport");
    assertThat(okJson("proxy_status", Map.of()).get("proxy").asText()).as("still serving").contains(":");
  }

  /** A read-only server lists only reading tools and refuses the others. */
  void readOnly(Path tmp) {
    assertThat(mcp.listTools().tools()).extracting(McpSchema.Tool::name)
        .containsExactlyInAnyOrderElementsOf(ALL_TOOLS.stream().filter(t -> !WRITE_TOOLS.contains(t)).toList());
    assertThat(error("add_breakpoint", Map.of("filter", "~d example"))).contains("read-only");
    assertThat(error("replay_flow", Map.of("flowId", 1))).contains("read-only");
    assertThat(error("export_har", Map.of("path", tmp.resolve("ro.har").toString()))).contains("read-only");
    assertThat(okJson("list_flows", Map.of()).get("count").asInt()).isGreaterThanOrEqualTo(0);
    assertThat(okJson("proxy_status", Map.of()).get("mcp").get("readOnly").asBoolean()).isTrue();
  }
}
