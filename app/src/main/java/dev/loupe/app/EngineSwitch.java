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
  private final dev.loupe.engine.api.intercept.InterceptService intercept;
  private volatile ProxyEngine engine;
  private volatile EngineConfig config;
  /** Told of every new engine after a restart (launched clients reopen their listeners on it). */
  private final java.util.List<java.util.function.Consumer<ProxyEngine>> restarted =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  EngineSwitch(ProxyEngine engine, EngineConfig config, FlowStore store) {
    this.engine = engine;
    this.config = config;
    this.store = store;
    this.intercept = engine.intercept();
  }

  /** Replays through whichever proxy is running when asked (see {@link ProxyEngine#replay}). */
  dev.loupe.engine.api.intercept.Replayer replayer() {
    return (request, protocol, replayOf) -> engine.replay(request, protocol, replayOf);
  }

  /** Calls {@code listener} with each engine a restart brings up (on the restarting thread). */
  void onRestart(java.util.function.Consumer<ProxyEngine> listener) {
    restarted.add(listener);
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
      restarted.forEach(l -> l.accept(engine));
      return engine;
    } catch (IOException | RuntimeException e) {
      try {
        engine = ProxyEngine.start(config, store, intercept);
        restarted.forEach(l -> l.accept(engine));
      } catch (IOException | RuntimeException again) {
        e.addSuppressed(again);
      }
      throw e;
    }
  }
}
