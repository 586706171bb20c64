package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.engine.internal.tls.MitmContexts;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import java.util.concurrent.ExecutorService;

/**
 * The shared, thread-safe services every leg uses.
 *
 * @param config    engine configuration
 * @param store     where flows are recorded
 * @param connector server-leg connections and pool
 * @param mitm      per-host TLS contexts for interception
 * @param blocking  executor for blocking work (DNS, minting)
 * @param intercept rules and breakpoints: decides which flows go to the full tier
 * @param altSvc    reverse mode: the {@code Alt-Svc} value H1/H2 responses carry while the QUIC
 *                  listener is up (e.g. {@code h3=":8443"; ma=86400}), else null
 */
public record EngineContext(
    EngineConfig config, RecordingStore store, UpstreamConnector connector, MitmContexts mitm, ExecutorService blocking,
    dev.loupe.engine.internal.intercept.DefaultInterceptService intercept, java.util.concurrent.atomic.AtomicReference<String> altSvc) {
  public EngineContext(
      EngineConfig config, RecordingStore store, UpstreamConnector connector, MitmContexts mitm, ExecutorService blocking,
      dev.loupe.engine.internal.intercept.DefaultInterceptService intercept) {
    this(config, store, connector, mitm, blocking, intercept, new java.util.concurrent.atomic.AtomicReference<>());
  }
}
