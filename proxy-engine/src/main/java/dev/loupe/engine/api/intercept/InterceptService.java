package dev.loupe.engine.api.intercept;

import dev.loupe.engine.api.plugin.Plugins;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Breakpoints, rules, plugins and paused flows: the one service the desktop UI and the control API
 * both drive, and the engine asks about every request. It outlives engine restarts (a settings
 * change restarts the engine; rules and pauses stay). Make one with {@link #create}; the engine's
 * implementation (its interceptor chain) is found through {@link ServiceLoader} ({@code
 * META-INF/services/dev.loupe.engine.api.intercept.InterceptService$Factory}), so this package
 * depends on no internal one.
 *
 * <p>Thread-safe.
 */
public interface InterceptService extends AutoCloseable {
  /** A service with no plugin data directory (plugins get a temporary one). */
  static InterceptService create() {
    return create(null);
  }

  /** @param pluginData where plugins keep their files ({@code CONFDIR/plugin-data}), or null */
  static InterceptService create(Path pluginData) {
    return Provider.FACTORY.create(pluginData);
  }

  /** Makes services; the engine's interceptor chain is the one implementation. */
  interface Factory {
    InterceptService create(Path pluginData);
  }

  /** The implementation, loaded once. */
  final class Provider {
    static final Factory FACTORY = ServiceLoader.load(Factory.class, InterceptService.class.getClassLoader())
        .findFirst().orElseThrow(() -> new IllegalStateException("the engine's interceptor chain is missing from"
            + " the class path (META-INF/services/" + Factory.class.getName() + ")"));

    private Provider() {}
  }

  /** Told when a flow pauses and when it is released (on the thread that caused it). */
  interface PauseListener {
    void paused(PausedFlow p);

    void released(PausedFlow p);
  }

  /** The session's plugins (they outlive proxy restarts, like the rules). */
  Plugins plugins();

  InterceptList<Rule> rules();

  InterceptList<Breakpoint> breakpoints();

  /** How long a flow may stay paused before it is resumed unchanged; zero (the default) = forever. */
  Duration pauseTimeout();

  /** @throws IllegalArgumentException when {@code d} is negative */
  void pauseTimeout(Duration d);

  /** Flows paused now, oldest first. */
  List<PausedFlow> pausedFlows();

  /** The paused flow with {@code flowId}, or null. */
  PausedFlow paused(long flowId);

  AutoCloseable subscribe(PauseListener l);

  /** Resumes every paused flow unchanged (the user leaves the app, or switches breakpoints off). */
  int releaseAll();

  /** Stops the plugins, releases every pause and stops the timeout timer. */
  @Override
  void close();
}
