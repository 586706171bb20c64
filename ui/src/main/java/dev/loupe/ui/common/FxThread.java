package dev.loupe.ui.common;

/**
 * Where view models hand work to the UI thread. The app passes JavaFX's
 * ({@code Platform::runLater}); tests pass one they run by hand, so view models are tested
 * without a display.
 */
@FunctionalInterface
public interface FxThread {
  /** Runs {@code task} on the UI thread, later. */
  void post(Runnable task);
}
