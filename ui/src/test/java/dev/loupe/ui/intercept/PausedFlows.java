package dev.loupe.ui.intercept;

import dev.loupe.engine.api.intercept.Breakpoint;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.PausedFlow;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.internal.intercept.DefaultInterceptService;
import dev.loupe.engine.internal.intercept.Interception;
import dev.loupe.engine.internal.intercept.RequestOutcome;
import dev.loupe.engine.internal.intercept.ResponseOutcome;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Real paused flows without a proxy: a flow goes through the service's {@link Interception} the way
 * the client leg sends it, and stops at a real breakpoint. The returned futures complete with what
 * the engine would carry out.
 */
final class PausedFlows {
  private static final AtomicLong IDS = new AtomicLong(1000);

  /** A request paused at its request phase, and the outcome the engine would get. */
  record AtRequest(PausedFlow paused, CompletableFuture<RequestOutcome> outcome) {}

  /** A response paused at its response phase, and the outcome the engine would get. */
  record AtResponse(PausedFlow paused, CompletableFuture<ResponseOutcome> outcome) {}

  private PausedFlows() {}

  static RequestDraft post(String url, String json) {
    return new RequestDraft("POST", url, "HTTP/1.1",
        Headers.of("Host", url.replaceFirst("^https?://([^/]+).*", "$1"), "Content-Type", "application/json",
            "X-Trace", "abc"),
        json.getBytes(StandardCharsets.UTF_8));
  }

  /** Pauses {@code draft} at a request breakpoint (one is added to {@code service} if it has none for requests). */
  static AtRequest atRequest(InterceptService service, RequestDraft draft) {
    if (service.breakpoints().entries().stream().noneMatch(Breakpoint::request)) {
      service.breakpoints().add(new Breakpoint(null, "", true, false, true));
    }
    RecordedFlow flow = new RecordedFlow(IDS.incrementAndGet(), Instant.now(), CapturePolicy.defaults());
    flow.request(draft.toHead());
    Interception ic = DefaultInterceptService.of(service).begin(flow);
    if (ic == null) {
      throw new IllegalStateException("no breakpoint wants " + draft);
    }
    CompletableFuture<RequestOutcome> out = ic.request(draft).toCompletableFuture();
    PausedFlow p = service.paused(flow.id());
    if (p == null) {
      throw new IllegalStateException("not paused: " + draft);
    }
    return new AtRequest(p, out);
  }

  /** Pauses {@code response} (to {@code request}) at a response breakpoint. */
  static AtResponse atResponse(InterceptService service, RequestDraft request, ResponseDraft response) {
    if (service.breakpoints().entries().stream().noneMatch(Breakpoint::response)) {
      service.breakpoints().add(new Breakpoint(null, "", false, true, true));
    }
    RecordedFlow flow = new RecordedFlow(IDS.incrementAndGet(), Instant.now(), CapturePolicy.defaults());
    flow.request(request.toHead());
    Interception ic = DefaultInterceptService.of(service).begin(flow);
    CompletableFuture<ResponseOutcome> out = ic.response(request, response).toCompletableFuture();
    PausedFlow p = service.paused(flow.id());
    if (p == null) {
      throw new IllegalStateException("not paused: " + response);
    }
    return new AtResponse(p, out);
  }
}
