package dev.loupe.app;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.ProxyEngine;
import dev.loupe.engine.flow.FlowStore;
import java.io.IOException;

/**
 * The running proxy, which the settings can replace with one on a new configuration: the old one
 * stops (its port is freed), the new one starts on the same flow store; if the new one cannot start
 * (port taken), the old configuration is started again and the error is reported.
 */
final class EngineSwitch {
  private final FlowStore store;
  private final dev.loupe.engine.intercept.InterceptService intercept;
  private volatile ProxyEngine engine;
  private volatile EngineConfig config;

  EngineSwitch(ProxyEngine engine, EngineConfig config, FlowStore store) {
    this.engine = engine;
    this.config = config;
    this.store = store;
    this.intercept = engine.intercept();
  }

  /** Replays through whichever proxy is running when asked (see {@link ProxyEngine#replay}). */
  dev.loupe.engine.intercept.Replayer replayer() {
    return (request, protocol, replayOf) -> engine.replay(request, protocol, replayOf);
  }

  ProxyEngine current() {
    return engine;
  }

  EngineConfig config() {
    return config;
  }

  /** Replaces the running proxy with one on {@code next}; returns the new one. */
  synchronized ProxyEngine restart(EngineConfig next) throws IOException {
    ProxyEngine old = engine;
    old.close();
    try {
      engine = ProxyEngine.start(next, store, intercept);
      config = next;
      return engine;
    } catch (IOException | RuntimeException e) {
      try {
        engine = ProxyEngine.start(config, store, intercept);
      } catch (IOException | RuntimeException again) {
        e.addSuppressed(again);
      }
      throw e;
    }
  }
}
