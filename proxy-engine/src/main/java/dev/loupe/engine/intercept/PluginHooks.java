package dev.loupe.engine.intercept;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.spi.RequestHook;
import dev.loupe.spi.ResponseHook;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The handles {@link PluginHost} passes to {@code request} and {@code response} hooks: a draft the
 * plugin edits through explicit methods, turned into an outcome when the hook returns. Confined to
 * the plugin's thread while the hook runs; read by the host once it has returned.
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

  static final class Request implements RequestHook {
    private final Flow flow;
    private final boolean editable;
    private final String plugin;
    private RequestDraft draft;
    private RequestOutcome ending;

    Request(Flow flow, RequestDraft draft, boolean editable, String plugin) {
      this.flow = flow;
      this.draft = draft;
      this.editable = editable;
      this.plugin = plugin;
    }

    /** A read-only hook on a finished flow's recorded request. */
    static Request observed(Flow flow, String plugin) {
      return new Request(flow, RequestDraft.of(flow.request(), flow.requestBody().bytes()), false, plugin);
    }

    RequestOutcome outcome() {
      return ending != null ? ending : new RequestOutcome.Forward(draft);
    }

    /** Whether the hook changed anything. */
    boolean changed(RequestDraft before) {
      return ending != null || !draft.sameAs(before);
    }

    private Request edit(RequestDraft next) {
      checkEditable(editable, plugin);
      if (ending != null) {
        throw new IllegalStateException("the request was already answered or killed");
      }
      draft = next;
      return this;
    }

    @Override public Flow flow() { return flow; }
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
    private final Flow flow;
    private final boolean editable;
    private final String plugin;
    private ResponseDraft draft;
    private ResponseOutcome ending;

    Response(Flow flow, ResponseDraft draft, boolean editable, String plugin) {
      this.flow = flow;
      this.draft = draft;
      this.editable = editable;
      this.plugin = plugin;
    }

    static Response observed(Flow flow, String plugin) {
      return new Response(flow, ResponseDraft.of(flow.response(), flow.responseBody().bytes()), false, plugin);
    }

    ResponseOutcome outcome() {
      return ending != null ? ending : new ResponseOutcome.Deliver(draft);
    }

    boolean changed(ResponseDraft before) {
      return ending != null || !draft.sameAs(before);
    }

    private Response edit(ResponseDraft next) {
      checkEditable(editable, plugin);
      if (ending != null) {
        throw new IllegalStateException("the response was already killed");
      }
      draft = next;
      return this;
    }

    @Override public Flow flow() { return flow; }
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
