package dev.loupe.ui.intercept;

import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.PausedFlow;
import dev.loupe.ui.common.FxThread;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The flows paused at a breakpoint now, oldest first, kept up with the {@link InterceptService}.
 * Pause events arrive on engine threads (or whichever thread released the flow); the list changes
 * on the UI thread only. The flow table redraws a row with or without its paused mark from the
 * store's events: the engine publishes an update when a flow pauses and when it is released.
 */
public final class PausedFlowsViewModel implements AutoCloseable {
  private final ObservableList<PausedFlow> paused = FXCollections.observableArrayList();
  /** One wrapper for every caller: a wrapper only forwards changes while something holds it. */
  private final ObservableList<PausedFlow> readOnly = FXCollections.unmodifiableObservableList(paused);
  private final ReadOnlyIntegerWrapper count = new ReadOnlyIntegerWrapper(this, "count");
  private final AutoCloseable subscription;

  public PausedFlowsViewModel(InterceptService service, FxThread fx) {
    subscription = service.subscribe(new InterceptService.PauseListener() {
      @Override
      public void paused(PausedFlow p) {
        fx.post(() -> {
          if (!p.released() && !paused.contains(p)) {
            paused.add(p);
            count.set(paused.size());
          }
        });
      }

      @Override
      public void released(PausedFlow p) {
        fx.post(() -> {
          if (paused.remove(p)) {
            count.set(paused.size());
          }
        });
      }
    });
    // flows paused before we subscribed (another window, the control API)
    fx.post(() -> {
      for (PausedFlow p : service.pausedFlows()) {
        if (!p.released() && !paused.contains(p)) {
          paused.add(p);
        }
      }
      count.set(paused.size());
    });
  }

  /** The paused flows (UI thread). */
  public ObservableList<PausedFlow> pausedFlows() {
    return readOnly;
  }

  public ReadOnlyIntegerProperty countProperty() {
    return count.getReadOnlyProperty();
  }

  /** "3 paused", or empty when none. */
  public static String describe(int n) {
    return n == 0 ? "" : n + " paused";
  }

  @Override
  public void close() {
    try {
      subscription.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
