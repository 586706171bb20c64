package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.api.intercept.RuleAction;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.spi.RequestHook;
import dev.loupe.spi.ResponseHook;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The handles the interceptors' {@code request} and {@code response} hooks get — plugins' and the
 * built-in rules' and breakpoints' alike ({@link InterceptorChain}): a draft the hook edits through
 * explicit methods, turned into an outcome when the hook is done. Confined to the thread running the
 * hook while it runs; read by the chain once it has returned (and any stage it returned completed).
 *
 * <p>Beyond the public {@link RequestHook}/{@link ResponseHook}, the package-private methods are the
 * engine's own abilities that the SPI does not offer plugins (yet): replace the whole draft as a
 * rule computed it, end with any outcome (an abort that resets, an answer with its reason phrase),
 * throttle the flow, and record a change that left the draft as it was.
 */
final class PluginHooks {
  private static final java.util.List<String> HOOKS = java.util.List.of("load", "configure", "running", "done",
      "connect", "requestHeaders", "request", "responseHeaders", "response", "error", "webSocketMessage");

  private PluginHooks() {}

  /** The {@link dev.loupe.spi.Plugin} hooks {@code p}'s class implements, by name, in the order they run. */
  static java.util.List<String> implemented(dev.loupe.spi.Plugin p) {
    java.util.List<String> out = new java.util.ArrayList<>();
    for (java.lang.reflect.Method m : p.getClass().getMethods()) {
      if (HOOKS.contains(m.getName()) && m.getDeclaringClass() != dev.loupe.spi.Plugin.class && !m.isBridge()
          && !out.contains(m.getName())) {
        out.add(m.getName());
      }
    }
    out.sort(java.util.Comparator.comparingInt(HOOKS::indexOf));
    return out;
  }

  private static void checkEditable(boolean editable, String plugin) {
    if (!editable) {
      throw new IllegalStateException("plugin " + plugin + " only observes this flow: return a filter from"
          + " interceptFilter() to change the flows it matches");
    }
  }

  /**
   * Records {@code note} on {@code flow}'s "modified by" list once (a flow's hooks run one after the
   * other, so check-then-add does not race).
   */
  static void mark(RecordedFlow flow, String note) {
    if (!flow.modifiedBy().contains(note)) {
      flow.modifiedBy(note);
    }
  }

  static final class Request implements RequestHook {
    private final RecordedFlow flow;
    private final boolean editable;
    private final String plugin;
    /** The flow's interception (in-flight hooks), or null (observed after the fact). */
    private final Interception interception;
    private final RequestDraft before;
    private RequestDraft draft;
    private RequestOutcome ending;
    private boolean applied;

    Request(RecordedFlow flow, RequestDraft draft, boolean editable, String plugin) {
      this(flow, draft, editable, plugin, null);
    }

    private Request(RecordedFlow flow, RequestDraft draft, boolean editable, String plugin, Interception interception) {
      this.flow = flow;
      this.before = draft;
      this.draft = draft;
      this.editable = editable;
      this.plugin = plugin;
      this.interception = interception;
    }

    /** An editable hook on an intercepted flow's request, as the interceptors before left it. */
    static Request inFlight(Interception ic, RequestDraft draft, String interceptor) {
      return new Request(ic.flow(), draft, true, interceptor, ic);
    }

    /** A read-only hook on a finished flow's recorded request. */
    static Request observed(RecordedFlow flow, String plugin) {
      return new Request(flow, RequestDraft.of(flow.request(), flow.requestBody().bytes()), false, plugin);
    }

    RequestOutcome outcome() {
      return ending != null ? ending : new RequestOutcome.Forward(draft);
    }

    /** Whether the hook changed anything. */
    boolean changed(RequestDraft before) {
      return ending != null || !draft.sameAs(before);
    }

    /**
     * The outcome once the hook is done; {@code note} (when not null) goes on the flow's "modified
     * by" list if the hook changed the request or {@linkplain #applied() said it applied}.
     */
    RequestOutcome finish(String note) {
      if (note != null && (applied || changed(before))) {
        mark(flow, note);
      }
      return outcome();
    }

    // ---- engine-only abilities (the built-in interceptors) --------------------------------------

    /** The request as it stands. */
    RequestDraft draft() {
      return draft;
    }

    /** Replaces the whole request (as a rule computed it; checked when it is sent). */
    void replace(RequestDraft next) {
      edit(Objects.requireNonNull(next, "next"));
    }

    /** Ends the hook with {@code outcome}: forward that request, answer, or abort (reset or close). */
    void end(RequestOutcome outcome) {
      checkEditable(editable, plugin);
      if (outcome instanceof RequestOutcome.Forward f) {
        draft = f.request();
        ending = null;
      } else {
        ending = Objects.requireNonNull(outcome, "outcome");
      }
    }

    /** Throttles the flow with {@code t} unless an earlier interceptor did; true when it took effect. */
    boolean throttle(RuleAction.Throttle t) {
      checkEditable(editable, plugin);
      return interception.throttleIfUnset(t);
    }

    /** Counts as a change even when the draft stayed the same (a throttle, a map remote to the same place). */
    void applied() {
      applied = true;
    }

    Interception interception() {
      return interception;
    }

    private Request edit(RequestDraft next) {
      checkEditable(editable, plugin);
      if (ending != null) {
        throw new IllegalStateException("the request was already answered or killed");
      }
      draft = next;
      return this;
    }

    @Override public RecordedFlow flow() { return flow; }
    @Override public boolean editable() { return editable; }
    @Override public String method() { return draft.method(); }
    @Override public String url() { return draft.url(); }
    @Override public Headers headers() { return draft.headers(); }
    @Override public byte[] body() { return draft.body().clone(); }
    @Override public String bodyText() { return draft.bodyText(); }

    @Override
    public RequestHook method(String method) {
      return edit(draft.withMethod(Objects.requireNonNull(method, "method")));
    }

    @Override
    public RequestHook url(String url) {
      RequestDraft next = draft.withUrl(Objects.requireNonNull(url, "url"));
      next.toHead(); // refuses a URL that is not absolute http(s) now, in the plugin's hook
      return edit(next);
    }

    @Override
    public RequestHook setHeader(String name, String value) {
      return edit(draft.withHeaders(draft.headers().with(name, value)));
    }

    @Override
    public RequestHook addHeader(String name, String value) {
      return edit(draft.withHeaders(draft.headers().plus(name, value)));
    }

    @Override
    public RequestHook removeHeader(String name) {
      return edit(draft.withHeaders(draft.headers().without(name)));
    }

    @Override
    public RequestHook body(byte[] body) {
      return edit(draft.withBody(body.clone()));
    }

    @Override
    public RequestHook bodyText(String text) {
      return body(text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void answer(int status, Headers headers, byte[] body) {
      checkEditable(editable, plugin);
      ending = new RequestOutcome.Respond(new ResponseDraft(status, "", "HTTP/1.1",
          headers == null ? Headers.EMPTY : headers, body == null ? new byte[0] : body.clone()));
    }

    @Override
    public void kill() {
      checkEditable(editable, plugin);
      ending = new RequestOutcome.Abort(false, "killed by plugin " + plugin);
    }
  }

  static final class Response implements ResponseHook {
    private final RecordedFlow flow;
    private final boolean editable;
    private final String plugin;
    /** The flow's interception (in-flight hooks), or null (observed after the fact). */
    private final Interception interception;
    /** The request as it went out (in-flight hooks), or null. */
    private final RequestDraft sent;
    private final ResponseDraft before;
    private ResponseDraft draft;
    private ResponseOutcome ending;
    private boolean applied;

    Response(RecordedFlow flow, ResponseDraft draft, boolean editable, String plugin) {
      this(flow, null, null, draft, editable, plugin);
    }

    private Response(RecordedFlow flow, Interception interception, RequestDraft sent, ResponseDraft draft, boolean editable,
        String plugin) {
      this.flow = flow;
      this.interception = interception;
      this.sent = sent;
      this.before = draft;
      this.draft = draft;
      this.editable = editable;
      this.plugin = plugin;
    }

    /** An editable hook on an intercepted flow's response; {@code sent} is the request as it went out. */
    static Response inFlight(Interception ic, RequestDraft sent, ResponseDraft draft, String interceptor) {
      return new Response(ic.flow(), ic, sent, draft, true, interceptor);
    }

    static Response observed(RecordedFlow flow, String plugin) {
      return new Response(flow, ResponseDraft.of(flow.response(), flow.responseBody().bytes()), false, plugin);
    }

    ResponseOutcome outcome() {
      return ending != null ? ending : new ResponseOutcome.Deliver(draft);
    }

    boolean changed(ResponseDraft before) {
      return ending != null || !draft.sameAs(before);
    }

    /** Like {@link Request#finish}. */
    ResponseOutcome finish(String note) {
      if (note != null && (applied || changed(before))) {
        mark(flow, note);
      }
      return outcome();
    }

    // ---- engine-only abilities (the built-in interceptors) --------------------------------------

    ResponseDraft draft() {
      return draft;
    }

    /** The request as it went out. */
    RequestDraft sent() {
      return sent;
    }

    void replace(ResponseDraft next) {
      edit(Objects.requireNonNull(next, "next"));
    }

    /** Ends the hook with {@code outcome}: deliver that response, or abort (reset or close). */
    void end(ResponseOutcome outcome) {
      checkEditable(editable, plugin);
      if (outcome instanceof ResponseOutcome.Deliver d) {
        draft = d.response();
        ending = null;
      } else {
        ending = Objects.requireNonNull(outcome, "outcome");
      }
    }

    void applied() {
      applied = true;
    }

    Interception interception() {
      return interception;
    }

    private Response edit(ResponseDraft next) {
      checkEditable(editable, plugin);
      if (ending != null) {
        throw new IllegalStateException("the response was already killed");
      }
      draft = next;
      return this;
    }

    @Override public RecordedFlow flow() { return flow; }
    @Override public boolean editable() { return editable; }
    @Override public int status() { return draft.status(); }
    @Override public String reason() { return draft.reason(); }
    @Override public Headers headers() { return draft.headers(); }
    @Override public byte[] body() { return draft.body().clone(); }
    @Override public String bodyText() { return draft.bodyText(); }

    @Override
    public ResponseHook status(int status) {
      return edit(draft.withStatus(status));
    }

    @Override
    public ResponseHook setHeader(String name, String value) {
      return edit(draft.withHeaders(draft.headers().with(name, value)));
    }

    @Override
    public ResponseHook addHeader(String name, String value) {
      return edit(draft.withHeaders(draft.headers().plus(name, value)));
    }

    @Override
    public ResponseHook removeHeader(String name) {
      return edit(draft.withHeaders(draft.headers().without(name)));
    }

    @Override
    public ResponseHook body(byte[] body) {
      return edit(draft.withBody(body.clone()));
    }

    @Override
    public ResponseHook bodyText(String text) {
      return body(text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void kill() {
      checkEditable(editable, plugin);
      ending = new ResponseOutcome.Abort(false, "killed by plugin " + plugin);
    }
  }
}
