package dev.loupe.engine.internal.intercept;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.intercept.Breakpoint;
import dev.loupe.engine.api.intercept.ContentCoding;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.RewriteOp;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.api.intercept.RuleAction;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The intercept model without sockets: lists, JSON, validation, rule effects, codings, the tier decision. */
class InterceptModelTest {
  @TempDir
  Path dir;

  static Rule rewrite(String name, String filter, RewriteOp... ops) {
    return new Rule(null, name, true, filter, new RuleAction.Rewrite(List.of(ops)));
  }

  static RecordedFlow flow(String method, String url, String... headers) {
    RecordedFlow f = new RecordedFlow(1, Instant.now(), CapturePolicy.defaults());
    f.request(new RequestDraft(method, url, "HTTP/1.1", Headers.of(headers), null).toHead());
    return f;
  }

  @Test
  void everyRuleTypeRoundTripsThroughJsonAndKeepsItsOrder() {
    DefaultInterceptService s = new DefaultInterceptService();
    s.rules().add(new Rule("a", "local", true, "~d example.com", new RuleAction.MapLocal("/srv/mock", "/api")));
    s.rules().add(new Rule("b", "remote", false, "~u /v1/", new RuleAction.MapRemote("https://staging:8443/v2", true)));
    s.rules().add(rewrite("rw", "~m POST", new RewriteOp(RewriteOp.Side.RESPONSE, RewriteOp.Kind.SET_STATUS, "", "503"),
        new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.REPLACE_BODY, "a(b)", "$1")));
    s.rules().add(new Rule("d", "block", true, "", new RuleAction.Block(RuleAction.Block.Mode.RESET, 0)));
    s.rules().add(new Rule("e", "slow", true, "", new RuleAction.Throttle(262144, 50)));
    String json = s.rules().toJson();
    assertThat(json).contains("\"type\" : \"mapLocal\"", "\"type\" : \"throttle\"");

    DefaultInterceptService other = new DefaultInterceptService();
    other.rules().replaceFromJson(json);
    assertThat(other.rules().entries()).isEqualTo(s.rules().entries());
    other.rules().move("e", 0);
    assertThat(other.rules().entries()).extracting(Rule::name).containsExactly("slow", "local", "remote", "rw", "block");
    other.rules().appendFromJson(json); // clashing ids get new ones
    assertThat(other.rules().entries()).hasSize(10).extracting(Rule::id).doesNotHaveDuplicates();
  }

  @Test
  void invalidRulesAreRefusedNamingTheProblemAndChangeNothing() {
    DefaultInterceptService s = new DefaultInterceptService();
    s.rules().add(rewrite("ok", "", new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.SET_HEADER, "X-A", "1")));
    assertThatThrownBy(() -> s.rules().add(rewrite("bad filter", "~d (", new RewriteOp(RewriteOp.Side.REQUEST,
        RewriteOp.Kind.SET_HEADER, "X", "1")))).hasMessageContaining("\"bad filter\": bad filter");
    assertThatThrownBy(() -> s.rules().add(rewrite("bad regex", "", new RewriteOp(RewriteOp.Side.REQUEST,
        RewriteOp.Kind.REPLACE_BODY, "a(", "")))).hasMessageContaining("invalid regex");
    assertThatThrownBy(() -> s.rules().add(rewrite("status on request", "", new RewriteOp(RewriteOp.Side.REQUEST,
        RewriteOp.Kind.SET_STATUS, "", "200")))).hasMessageContaining("response only");
    assertThatThrownBy(() -> s.rules().add(new Rule(null, "t", true, "", new RuleAction.Throttle(0, 0))))
        .hasMessageContaining("needs a rate or a latency");
    assertThatThrownBy(() -> s.rules().add(new Rule(null, "m", true, "", new RuleAction.MapRemote("ftp://x", true))))
        .hasMessageContaining("http:// or https://");
    assertThatThrownBy(() -> s.rules().replaceFromJson("[{\"name\":\"x\",\"action\":{\"type\":\"nope\"}}]"))
        .hasMessageStartingWith("not a valid rule list");
    assertThatThrownBy(() -> s.breakpoints().add(new Breakpoint(null, "", false, false, true)))
        .hasMessageContaining("requests, responses or both");
    assertThat(s.rules().entries()).extracting(Rule::name).containsExactly("ok");
  }

  @Test
  void persistedListsAreOwnerOnlyAndABrokenFileIsKeptAside() throws Exception {
    Path file = dir.resolve("rules.json");
    DefaultInterceptService s = new DefaultInterceptService();
    assertThat(s.rules().persistTo(file)).isNull();
    s.rules().add(new Rule("x", "block ads", true, "~d ads", new RuleAction.Block(RuleAction.Block.Mode.RESPOND, 404)));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    DefaultInterceptService again = new DefaultInterceptService();
    assertThat(again.rules().persistTo(file)).isNull();
    assertThat(again.rules().entries()).isEqualTo(s.rules().entries());

    Files.writeString(file, "{ not json");
    DefaultInterceptService broken = new DefaultInterceptService();
    assertThat(broken.rules().persistTo(file)).contains("could not read", "rules.json.broken");
    assertThat(Files.readString(dir.resolve("rules.json.broken"))).isEqualTo("{ not json");
    assertThat(broken.rules().entries()).isEmpty();
  }

  @Test
  void listenersHearEveryChange() throws Exception {
    DefaultInterceptService s = new DefaultInterceptService();
    AtomicInteger changes = new AtomicInteger();
    try (AutoCloseable sub = s.breakpoints().subscribe(changes::incrementAndGet)) {
      s.breakpoints().add(new Breakpoint("b", "~m POST", true, false, true));
      s.breakpoints().enable("b", false);
      s.breakpoints().active(false);
      s.breakpoints().remove("b");
    }
    s.breakpoints().clear();
    assertThat(changes).hasValue(4);
  }

  @Test
  void theTierDecisionTreatsResponseAndBodyAtomsAsMaybe() {
    RecordedFlow f = flow("POST", "https://api.example.com/v1/users?id=1", "Content-Type", "application/json");
    assertThat(Filter.parse("~d api.example.com & ~m POST").couldMatch(f)).isTrue();
    assertThat(Filter.parse("~d other.example & ~m POST").couldMatch(f)).isFalse();
    assertThat(Filter.parse("~d api.example.com & ~c 404").couldMatch(f)).isTrue(); // status unknown yet
    assertThat(Filter.parse("~d other.example & ~c 404").couldMatch(f)).isFalse();
    assertThat(Filter.parse("!~d api.example.com | ~bs secret").couldMatch(f)).isTrue();
    assertThat(Filter.parse("!~d api.example.com").couldMatch(f)).isFalse();
    assertThat(Filter.parse("~hq content-type:.*json").couldMatch(f)).isTrue();
    assertThat(Filter.parse("~hq x-none").couldMatch(f)).isFalse();
    assertThat(Filter.parse("~h x-none").couldMatch(f)).isTrue(); // the response headers may have it
    assertThat(Filter.parse("port=443 & method=POST").couldMatch(f)).isTrue();
    assertThat(Filter.parse("port=80").couldMatch(f)).isFalse();

    DefaultInterceptService s = new DefaultInterceptService();
    assertThat(s.begin(f)).isNull(); // nothing at all: relay
    s.rules().add(rewrite("elsewhere", "~d elsewhere", new RewriteOp(RewriteOp.Side.REQUEST,
        RewriteOp.Kind.SET_HEADER, "X", "1")));
    s.breakpoints().add(new Breakpoint(null, "~d api.example.com", false, true, false)); // disabled
    assertThat(s.begin(f)).isNull();
    s.breakpoints().enable(s.breakpoints().entries().get(0).id(), true);
    assertThat(s.begin(f)).isNotNull();
    s.breakpoints().active(false);
    assertThat(s.begin(f)).isNull();
  }

  @Test
  void mapRemoteAndRewriteEffects() {
    RequestDraft d = new RequestDraft("GET", "https://api.example.com/users?id=1", "HTTP/1.1",
        Headers.of("Host", "api.example.com", "Accept", "*/*"), null);
    RequestDraft kept = RuleEffects.mapRemote(new RuleAction.MapRemote("http://localhost:8080/v2/", true), d);
    assertThat(kept.url()).isEqualTo("http://localhost:8080/v2/users?id=1");
    assertThat(kept.headers().get("host")).isEqualTo("localhost:8080");
    RequestDraft exact = RuleEffects.mapRemote(new RuleAction.MapRemote("https://mock.test/fixed", false), d);
    assertThat(exact.url()).isEqualTo("https://mock.test/fixed?id=1");

    RuleAction.Rewrite rw = new RuleAction.Rewrite(List.of(
        new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.REPLACE_QUERY, "id=(\\d)", "id=$1$1"),
        new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.REMOVE_HEADER, "accept", "")));
    RequestDraft r = RuleEffects.rewriteRequest(rw, d);
    assertThat(r.url()).isEqualTo("https://api.example.com/users?id=11");
    assertThat(r.headers().contains("Accept")).isFalse();
    assertThat(RuleEffects.rewriteRequest(new RuleAction.Rewrite(List.of(new RewriteOp(RewriteOp.Side.REQUEST,
        RewriteOp.Kind.REPLACE_BODY, "nothing-matches", "x"))), d)).isSameAs(d);
  }

  @Test
  void mapLocalStaysInsideItsDirectory() throws Exception {
    Files.createDirectories(dir.resolve("site"));
    Files.writeString(dir.resolve("secret.txt"), "secret");
    Files.writeString(dir.resolve("site/a b.txt"), "spaced");
    RuleAction.MapLocal rule = new RuleAction.MapLocal(dir.resolve("site").toString(), "");
    assertThat(RuleEffects.mapLocal(rule, flowDraft("/a%20b.txt")).bodyText()).isEqualTo("spaced");
    assertThat(RuleEffects.mapLocal(rule, flowDraft("/..%2Fsecret.txt")).status()).isEqualTo(403);
    assertThat(RuleEffects.mapLocal(rule, flowDraft("/%2e%2e/secret.txt")).status()).isEqualTo(403);
    assertThat(RuleEffects.mapLocal(rule, flowDraft("/nope")).status()).isEqualTo(404);
  }

  private static RequestDraft flowDraft(String target) {
    return new RequestDraft("GET", "http://h.test" + target, "HTTP/1.1", Headers.EMPTY, null);
  }

  @Test
  void gzipBodiesAreEditedDecodedAndSentEncoded() throws Exception {
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(gz)) {
      z.write("{\"a\":1}".getBytes(StandardCharsets.UTF_8));
    }
    Headers h = Headers.of("Content-Encoding", "gzip");
    RequestHead head = new RequestDraft("POST", "http://h.test/", "HTTP/1.1", h, null).toHead();
    RequestDraft d = RequestDraft.of(head, gz.toByteArray());
    assertThat(d.bodyText()).isEqualTo("{\"a\":1}");
    byte[] wire = d.withBody("{\"a\":2}".getBytes(StandardCharsets.UTF_8)).wireBody();
    assertThat(ContentCoding.decodeOrKeep(h, wire)).asString(StandardCharsets.UTF_8).isEqualTo("{\"a\":2}");
    byte[] notGzip = "plain".getBytes(StandardCharsets.UTF_8);
    assertThat(RequestDraft.of(head, notGzip).body()).isEqualTo(notGzip); // shown as it came
    assertThat(ContentCoding.decodeOrKeep(Headers.of("Content-Encoding", "br"), notGzip)).isSameAs(notGzip);
  }
}
