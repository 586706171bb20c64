package dev.loupe.ui.plugins;

import dev.loupe.spi.ContentView;
import dev.loupe.ui.common.FxThread;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Plugins window's model: a row per plugin (name, version, source, hooks, what it costs, the
 * switch, last error, error count, whether Reload applies), the content views' names, and a
 * message line saying what the last action did. Follows the registry: every change (a hook
 * failing, a script reloaded by the watcher) refreshes the rows, coalesced to one refresh per UI
 * pulse.
 *
 * <p>UI thread only; switching and reloading run on the background executor and report back
 * through {@link FxThread}.
 */
public final class PluginsViewModel implements AutoCloseable {
  private final PluginControl control;
  private final FxThread fx;
  private final Executor background;
  private final ObservableList<PluginRow> rows = FXCollections.observableArrayList();
  private final ObservableList<String> views = FXCollections.observableArrayList();
  private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
  private final AtomicBoolean refreshQueued = new AtomicBoolean();
  private final AutoCloseable subscription;

  public PluginsViewModel(PluginControl control, FxThread fx, Executor background) {
    this.control = control;
    this.fx = fx;
    this.background = background;
    refresh();
    this.subscription = control.subscribe(() -> {
      if (refreshQueued.compareAndSet(false, true)) {
        fx.post(() -> {
          refreshQueued.set(false);
          refresh();
        });
      }
    });
  }

  /** Reads the registry again. */
  public void refresh() {
    List<PluginRow> next = control.list().stream().map(i -> PluginRow.of(i, control.canReload(i.id()))).toList();
    if (!next.equals(rows)) {
      rows.setAll(next);
    }
    List<String> names = control.contentViews().stream().map(PluginsViewModel::name).toList();
    if (!names.equals(views)) {
      views.setAll(names);
    }
  }

  public ObservableList<PluginRow> rows() {
    return FXCollections.unmodifiableObservableList(rows);
  }

  /** The content views' names. */
  public ObservableList<String> contentViews() {
    return FXCollections.unmodifiableObservableList(views);
  }

  /** What the last switch or reload did, or why it failed. */
  public ReadOnlyStringProperty messageProperty() {
    return message.getReadOnlyProperty();
  }

  /** Switches {@code row}'s plugin on or off. */
  public void setEnabled(PluginRow row, boolean on) {
    if (row.enabled() == on) {
      return;
    }
    background.execute(() -> {
      control.enabled(row.id(), on);
      fx.post(() -> {
        message.set(row.name() + (on ? " switched on" : " switched off"));
        refresh();
      });
    });
  }

  /** Reads {@code row}'s jar or script again. */
  public void reload(PluginRow row) {
    if (!row.reloadable()) {
      message.set(row.name() + " is on the class path: restart Loupe to load a new version");
      return;
    }
    message.set("Reloading " + row.name() + "…");
    background.execute(() -> {
      String problem;
      try {
        problem = control.reload(row.id());
      } catch (RuntimeException e) {
        problem = e.getMessage() == null ? e.toString() : e.getMessage();
      }
      String p = problem;
      fx.post(() -> {
        message.set(p == null ? "Reloaded " + row.name() + " from " + row.source() : row.name() + ": " + p);
        refresh();
      });
    });
  }

  private static String name(ContentView v) {
    try {
      return v.name();
    } catch (RuntimeException e) {
      return v.getClass().getSimpleName();
    }
  }

  @Override
  public void close() {
    try {
      subscription.close();
    } catch (Exception ignored) {
      // unsubscribing does not fail
    }
  }
}
