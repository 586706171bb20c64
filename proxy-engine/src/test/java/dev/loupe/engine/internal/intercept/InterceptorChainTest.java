package dev.loupe.engine.internal.intercept;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.intercept.Breakpoint;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.PausedFlow;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.api.intercept.RewriteOp;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.api.intercept.RuleAction;
import dev.loupe.engine.api.plugin.Plugins;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.spi.Plugin;
import dev.loupe.spi.RequestHook;
import dev.loupe.spi.ResponseHook;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interception pipeline without sockets: the built-in rules and breakpoints as interceptors on
 * the plugin SPI, in one chain with the plugins (rules → plugins → breakpoints), the marks they leave
 * on flows, and the tier decision they make together.
 */
@Timeout(60)
class InterceptorChainTest {
  private static final AtomicLong IDS = new AtomicLong(5000);

  @TempDir
  Path dir;

  private final DefaultInterceptService service = new DefaultInterceptService();

  @AfterEach
  void tearDown() {
    service.close();
  }

  private static RecordedFlow flow(RequestDraft d) {
    RecordedFlow f = new RecordedFlow(IDS.incrementAndGet(), Instant.now(), CapturePolicy.defaults());
    f.request(d.toHead());
    return f;
  }

  private static RequestDraft get(String url) {
    return new RequestDraft("GET", url, "HTTP/1.1", Headers.of("Host", url.replaceFirst("^https?://([^/]+).*", "$1"),
        "Accept", "*/*"), null);
  }

  private static Rule rule(String name, String filter, RuleAction action) {
    return new Rule(null, name, true, filter, action);
  }

  private static RewriteOp op(RewriteOp.Side side, RewriteOp.Kind kind, String match, String value) {
    return new RewriteOp(side, kind, match, value);
  }

  private static <T> T now(CompletionStage<T> stage) {
    CompletableFuture<T> f = stage.toCompletableFuture();
    assertThat(f).as("decided at once, on the calling thread").isDone();
    return f.join();
  }

  private static <T> T await(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  @Test
  void rulesRunInListOrderAndEachChangeIsRecordedOnce() {
    service.rules().add(rule("header", "~d api.test", new RuleAction.Rewrite(List.of(
        op(RewriteOp.Side.REQUEST, RewriteOp.Kind.SET_HEADER, "X-Step", "1"),
        op(RewriteOp.Side.RESPONSE, RewriteOp.Kind.SET_HEADER, "X-Seen", "yes")))));
    service.rules().add(rule("no-op", "", new RuleAction.Rewrite(List.of(
        op(RewriteOp.Side.REQUEST, RewriteOp.Kind.REPLACE_BODY, "never-there", "x")))));
    service.rules().add(rule("second", "", new RuleAction.Rewrite(List.of(
        op(RewriteOp.Side.REQUEST, RewriteOp.Kind.SET_HEADER, "X-Step", "2")))));
    service.rules().add(rule("staging", "~d api.test", new RuleAction.MapRemote("http://staging.test:8080", true)));
    service.rules().add(rule("slow", "", new RuleAction.Throttle(1000, 5)));
    service.rules().add(rule("slower", "", new RuleAction.Throttle(6400, 500)));
    service.rules().add(rule("elsewhere", "~d other.test", new RuleAction.Rewrite(List.of(
        op(RewriteOp.Side.REQUEST, RewriteOp.Kind.SET_HEADER, "X-Other", "1")))));

    RequestDraft d = get("https://api.test/users?id=1");
    RecordedFlow f = flow(d);
    Interception ic = service.begin(f);
    assertThat(ic).isNotNull();
    RequestOutcome out = now(ic.request(d));
    RequestDraft sent = ((RequestOutcome.Forward) out).request();
    assertThat(sent.headers().get("x-step")).as("the later rule saw the earlier one's edit").isEqualTo("2");
    assertThat(sent.url()).isEqualTo("http://staging.test:8080/users?id=1");
    assertThat(sent.headers().get("host")).isEqualTo("staging.test:8080");
    assertThat(ic.throttle()).as("the first matching throttle counts").isEqualTo(new RuleAction.Throttle(1000, 5));

    ResponseOutcome resp = now(ic.response(sent, ResponseDraft.text(200, "ok")));
    assertThat(((ResponseOutcome.Deliver) resp).response().headers().get("x-seen")).isEqualTo("yes");
    assertThat(f.modifiedBy()).containsExactly("rule \"header\"", "rule \"second\"", "rule \"staging\"",
        "rule \"slow\"");
  }

  @Test
  void mapLocalAndBlockEndTheRequestAndTheResponseSideStillRuns() throws Exception {
    Files.writeString(dir.resolve("users.json"), "[1,2]");
    service.rules().add(rule("mock", "~u /users", new RuleAction.MapLocal(dir.resolve("users.json").toString(), "")));
    service.rules().add(rule("never reached", "~u /users", new RuleAction.Rewrite(List.of(
        op(RewriteOp.Side.REQUEST, RewriteOp.Kind.SET_HEADER, "X-Late", "1")))));
    service.rules().add(rule("stamp", "", new RuleAction.Rewrite(List.of(
        op(RewriteOp.Side.RESPONSE, RewriteOp.Kind.SET_HEADER, "X-Stamp", "1")))));
    service.rules().add(rule("ads", "~d ads.test", new RuleAction.Block(RuleAction.Block.Mode.RESPOND, 404)));
    service.rules().add(rule("close", "~d close.test", new RuleAction.Block(RuleAction.Block.Mode.CLOSE, 0)));
    service.rules().add(rule("reset", "~d reset.test", new RuleAction.Block(RuleAction.Block.Mode.RESET, 0)));

    RequestDraft d = get("http://api.test/users");
    RecordedFlow f = flow(d);
    Interception ic = service.begin(f);
    RequestOutcome out = now(ic.request(d));
    ResponseDraft answer = ((RequestOutcome.Respond) out).response();
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.reason()).isEqualTo("OK");
    assertThat(answer.bodyText()).isEqualTo("[1,2]");
    assertThat(answer.headers().get("content-type")).isEqualTo("application/json");
    ResponseDraft delivered = ((ResponseOutcome.Deliver) now(ic.response(d, answer))).response();
    assertThat(delivered.headers().get("x-stamp")).isEqualTo("1");
    assertThat(f.modifiedBy()).containsExactly("rule \"mock\"", "rule \"stamp\"");

    RequestDraft ad = get("http://ads.test/banner");
    RecordedFlow adFlow = flow(ad);
    RequestOutcome blocked = now(service.begin(adFlow).request(ad));
    assertThat(((RequestOutcome.Respond) blocked).response().status()).isEqualTo(404);
    assertThat(((RequestOutcome.Respond) blocked).response().bodyText()).contains("Blocked by Loupe rule \"ads\"");
    assertThat(adFlow.modifiedBy()).containsExactly("rule \"ads\"");

    RequestDraft c = get("http://close.test/");
    assertThat(now(service.begin(flow(c)).request(c)))
        .isEqualTo(new RequestOutcome.Abort(false, "blocked by rule \"close\""));
    RequestDraft r = get("http://reset.test/");
    assertThat(now(service.begin(flow(r)).request(r)))
        .isEqualTo(new RequestOutcome.Abort(true, "blocked by rule \"reset\""));
  }

  /** A plugin that stamps requests and records the order it sees things in. */
  static final class Stamp implements Plugin {
    final List<String> seen = new CopyOnWriteArrayList<>();

    @Override public String name() { return "stamp"; }

    @Override public String interceptFilter() { return "~d api.test"; }

    @Override
    public CompletionStage<?> request(RequestHook hook) {
      seen.add("request " + hook.headers().get("x-rule") + " editable=" + hook.editable());
      hook.setHeader("X-Plugin", "yes");
      return null;
    }

    @Override
    public CompletionStage<?> response(ResponseHook hook) {
      seen.add("response " + hook.status());
      hook.setHeader("X-Plugin", "yes");
      return null;
    }
  }

  @Test
  void pluginsRunBetweenRulesAndBreakpoints() throws Exception {
    Stamp stamp = new Stamp();
    service.plugins().add(stamp, "test", Map.of());
    service.rules().add(rule("tag", "", new RuleAction.Rewrite(List.of(
        op(RewriteOp.Side.REQUEST, RewriteOp.Kind.SET_HEADER, "X-Rule", "1")))));
    service.breakpoints().add(new Breakpoint(null, "~d api.test", true, true, true));

    RequestDraft d = get("https://api.test/a");
    RecordedFlow f = flow(d);
    Interception ic = service.begin(f);
    CompletionStage<RequestOutcome> req = ic.request(d);
    PausedFlow p = awaitPaused(f);
    assertThat(p.phase()).isEqualTo(Flow.Paused.REQUEST);
    assertThat(p.request().headers().get("x-rule")).isEqualTo("1");
    assertThat(p.request().headers().get("x-plugin")).as("the breakpoint sees the plugin's edit").isEqualTo("yes");
    assertThat(stamp.seen).containsExactly("request 1 editable=true");
    RequestDraft edited = p.request().withHeaders(p.request().headers().with("X-User", "edit"));
    assertThat(p.resume(edited)).isTrue();
    RequestOutcome out = await(req);
    assertThat(((RequestOutcome.Forward) out).request().headers().get("x-user")).isEqualTo("edit");
    assertThat(service.pausedFlows()).isEmpty();
    assertThat(f.paused()).isNull();

    CompletionStage<ResponseOutcome> resp = ic.response(edited, ResponseDraft.text(201, "made"));
    PausedFlow rp = awaitPaused(f);
    assertThat(rp.phase()).isEqualTo(Flow.Paused.RESPONSE);
    assertThat(rp.response().headers().get("x-plugin")).isEqualTo("yes");
    assertThat(rp.request()).as("the request as it was sent").isEqualTo(edited);
    assertThat(rp.answer(ResponseDraft.text(418, "teapot"))).isTrue();
    assertThat(((ResponseOutcome.Deliver) await(resp)).response().status()).isEqualTo(418);
    assertThat(f.modifiedBy()).containsExactly("rule \"tag\"", "plugin \"stamp\"", "breakpoint: request edited",
        "breakpoint: answered");
  }

  private PausedFlow awaitPaused(RecordedFlow f) {
    return org.awaitility.Awaitility.await("flow " + f.id() + " paused").atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(5)).until(() -> service.paused(f.id()), java.util.Objects::nonNull);
  }

  @Test
  void aBreakpointAloneHoldsTheFlowUntilReleasedAndACancelledPauseNeverDecides() {
    service.breakpoints().add(new Breakpoint(null, "~m POST", true, false, true));
    RequestDraft post = new RequestDraft("POST", "http://h.test/x", "HTTP/1.1", Headers.EMPTY,
        "{}".getBytes(StandardCharsets.UTF_8));
    RecordedFlow f = flow(post);
    Interception ic = service.begin(f);
    CompletableFuture<RequestOutcome> out = ic.request(post).toCompletableFuture();
    PausedFlow p = service.paused(f.id());
    assertThat(p).as("paused on the calling thread, before request() returns").isNotNull();
    assertThat(out).isNotDone();
    assertThat(p.abort()).isTrue();
    assertThat(out.join()).isEqualTo(new RequestOutcome.Abort(true, "aborted at a request breakpoint"));
    assertThat(p.resume()).as("released once").isFalse();

    RecordedFlow gone = flow(post);
    Interception left = service.begin(gone);
    CompletableFuture<RequestOutcome> never = left.request(post).toCompletableFuture();
    assertThat(service.paused(gone.id())).isNotNull();
    left.cancel();
    assertThat(service.paused(gone.id())).isNull();
    assertThat(gone.paused()).isNull();
    assertThatThrownBy(never::join).hasCauseInstanceOf(java.util.concurrent.CancellationException.class);

    RequestDraft getReq = get("http://h.test/y");
    assertThat(service.begin(flow(getReq))).as("a GET no breakpoint matches: relay tier").isNull();
  }

  /** Fails in its request hook: a plugin's failure is recorded and the flow goes on. */
  static final class Thrower implements Plugin {
    @Override public String name() { return "thrower"; }

    @Override public String interceptFilter() { return "~all"; }

    @Override
    public CompletionStage<?> request(RequestHook hook) {
      hook.setHeader("X-Half", "done");
      throw new IllegalStateException("boom");
    }
  }

  @Test
  void aFailingPluginLeavesTheRequestAsItWasAndTheChainGoesOn() throws Exception {
    service.plugins().add(new Thrower(), "test", Map.of());
    service.rules().add(rule("after all", "", new RuleAction.Throttle(0, 1)));
    RequestDraft d = get("http://h.test/z");
    RecordedFlow f = flow(d);
    RequestOutcome out = await(service.begin(f).request(d));
    assertThat(((RequestOutcome.Forward) out).request()).isEqualTo(d);
    assertThat(f.notes()).containsExactly("plugin thrower, hook request: IllegalStateException (boom)");
    assertThat(f.modifiedBy()).containsExactly("rule \"after all\"");
  }

  /** A built-in that fails is not swallowed like a plugin's failure: the interception fails, naming why. */
  @Test
  void aFailingBuiltInFailsTheInterception() {
    BuiltInInterceptor broken = new BuiltInInterceptor() {
      @Override String mark() { return "rule \"broken\""; }
      @Override boolean wantsRequest(Flow flow) { return true; }
      @Override boolean wantsResponse(Flow flow) { return false; }
      @Override public boolean couldChange(Flow flow) { return true; }

      @Override
      public CompletionStage<?> request(RequestHook hook) {
        throw new IllegalStateException("cannot read the mock file");
      }
    };
    service.rules().add(rule("any", "", new RuleAction.Throttle(6400, 0)));
    RequestDraft d = get("http://h.test/");
    RecordedFlow f = flow(d);
    Interception ic = service.begin(f);
    assertThatThrownBy(() -> broken.interceptRequest(ic, d)).hasMessage("cannot read the mock file");
    assertThat(f.modifiedBy()).isEmpty();
    // Not wanted on the response side: the draft goes on untouched.
    ResponseDraft r = ResponseDraft.text(200, "ok");
    assertThat(now(broken.interceptResponse(ic, d, r))).isEqualTo(new ResponseOutcome.Deliver(r));
  }

  /** Only edits responses: decides the tier, but is not asked about requests. */
  static final class ResponsesOnly implements Plugin {
    @Override public String interceptFilter() { return "~d plugin.test"; }

    @Override
    public CompletionStage<?> response(ResponseHook hook) {
      return null;
    }
  }

  @Test
  void theTierDecisionComesFromTheSameSteps() {
    RequestDraft d = get("https://plugin.test/a");
    assertThat(service.begin(flow(d))).as("nothing: relay").isNull();

    service.plugins().add(new Plugin() {}, "observer", Map.of());
    assertThat(service.begin(flow(d))).as("an observing plugin: relay").isNull();

    Plugins.PluginHandle h = service.plugins().add(new ResponsesOnly(), "test", Map.of());
    assertThat(service.begin(flow(d))).as("an intercepting plugin's filter matches").isNotNull();
    assertThat(service.begin(flow(get("https://other.test/")))).isNull();
    h.enabled(false);
    assertThat(service.begin(flow(d))).isNull();

    service.rules().add(new Rule("r", "on", false, "~d plugin.test", new RuleAction.Throttle(0, 1)));
    assertThat(service.begin(flow(d))).as("a disabled rule").isNull();
    service.rules().enable("r", true);
    assertThat(service.begin(flow(d))).isNotNull();
    service.rules().active(false);
    assertThat(service.begin(flow(d))).as("the rule list switched off").isNull();
  }

  @Test
  void builtInsArePluginsOnTheSpi() {
    Rule r = rule("tag", "~u /x", new RuleAction.Rewrite(List.of(
        op(RewriteOp.Side.REQUEST, RewriteOp.Kind.ADD_HEADER, "X-Tag", "1"))));
    service.rules().add(r);
    List<Interceptor> steps = new InterceptorChain(service).steps();
    assertThat(steps).hasSize(3);
    assertThat(steps.get(0)).isInstanceOf(Plugin.class).isInstanceOf(RuleInterceptor.class);
    assertThat(((Plugin) steps.get(0)).name()).isEqualTo("tag");
    assertThat(((Plugin) steps.get(0)).interceptFilter()).isEqualTo("~u /x");
    assertThat(steps.get(1)).isInstanceOf(PluginInterceptors.class);
    assertThat(steps.get(2)).isInstanceOf(Plugin.class).isInstanceOf(BreakpointInterceptor.class);

    // Its hook is the plugins' hook: an observed (read-only) one refuses its edits like a plugin's.
    RequestDraft d = get("http://h.test/x");
    RecordedFlow f = flow(d);
    PluginHooks.Request observed = new PluginHooks.Request(f, d, false, "tag");
    assertThatThrownBy(() -> ((Plugin) steps.get(0)).request(observed)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("only observes");
  }
}
