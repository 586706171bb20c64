package dev.loupe.ui.trust;

import static java.util.Objects.requireNonNull;

import dev.loupe.ui.common.FxThread;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The trust dialog's state and commands, without nodes (tested headless).
 *
 * <h3>Threading</h3>
 *
 * Public methods are called on the FX thread, and the properties change only there. Every port
 * call except {@link TrustPort#ca()} runs on the {@code background} executor; its result comes
 * back through {@link FxThread#post}. While a target's action runs, its row is {@linkplain
 * TrustTargetRow#busyProperty() busy} (the view shows progress and disables its buttons), other
 * rows stay usable, and a refresh does not overwrite it.
 */
public final class TrustDialogViewModel {
  private static final DateTimeFormatter DAY =
      DateTimeFormatter.ofPattern("d MMM yyyy", Locale.ENGLISH).withZone(ZoneId.systemDefault());

  private final TrustPort port;
  private final Executor background;
  private final FxThread fx;
  private final Consumer<String> clipboard;
  private final CaSummary ca;
  private final ObservableList<TrustTargetRow> targets = FXCollections.observableArrayList();
  private final ReadOnlyBooleanWrapper refreshing = new ReadOnlyBooleanWrapper(false);
  private final ReadOnlyStringWrapper refreshError = new ReadOnlyStringWrapper("");
  private final ReadOnlyBooleanWrapper exporting = new ReadOnlyBooleanWrapper(false);
  private final ReadOnlyObjectWrapper<TrustOutcome> exportOutcome = new ReadOnlyObjectWrapper<>();

  /**
   * @param port the trust stores and the CA
   * @param background runs the port's blocking calls
   * @param fx the FX thread
   * @param clipboard puts text on the clipboard (for the manual commands)
   */
  public TrustDialogViewModel(TrustPort port, Executor background, FxThread fx, Consumer<String> clipboard) {
    this.port = requireNonNull(port, "port");
    this.background = requireNonNull(background, "background");
    this.fx = requireNonNull(fx, "fx");
    this.clipboard = requireNonNull(clipboard, "clipboard");
    this.ca = port.ca();
  }

  /** The CA's particulars. */
  public CaSummary ca() {
    return ca;
  }

  /** "1 Dec 2026 – 1 Dec 2036" in the local time zone. */
  public String validity() {
    return DAY.format(ca.notBefore()) + " – " + DAY.format(ca.notAfter());
  }

  /** One row per trust store, in the port's order; filled by {@link #refresh()}. */
  public ObservableList<TrustTargetRow> targets() {
    return targets;
  }

  /** True while the stores are being discovered and asked. */
  public ReadOnlyBooleanProperty refreshingProperty() {
    return refreshing.getReadOnlyProperty();
  }

  /** Why the last refresh failed, or empty. */
  public ReadOnlyStringProperty refreshErrorProperty() {
    return refreshError.getReadOnlyProperty();
  }

  /** True while an export runs. */
  public ReadOnlyBooleanProperty exportingProperty() {
    return exporting.getReadOnlyProperty();
  }

  /** The last export's outcome, or null. */
  public ReadOnlyObjectProperty<TrustOutcome> exportOutcomeProperty() {
    return exportOutcome.getReadOnlyProperty();
  }

  /** The row of target {@code id}, or null. */
  public TrustTargetRow row(String id) {
    for (TrustTargetRow row : targets) {
      if (row.id().equals(id)) {
        return row;
      }
    }
    return null;
  }

  /** Discovers the stores and their status again, in the background. Ignored while one runs. */
  public void refresh() {
    if (refreshing.get()) {
      return;
    }
    refreshing.set(true);
    inBackground(port::targets, found -> {
      merge(found);
      refreshError.set("");
      refreshing.set(false);
    }, failure -> {
      refreshError.set(failure);
      refreshing.set(false);
    });
  }

  /** Installs the CA in {@code row}'s store, in the background; ignored unless it can. */
  public void install(TrustTargetRow row) {
    if (row.canInstallProperty().get()) {
      act(row, "Installing…", () -> port.install(row.id()));
    }
  }

  /** Removes the CA from {@code row}'s store, in the background; ignored unless it can. */
  public void remove(TrustTargetRow row) {
    if (row.canRemoveProperty().get()) {
      act(row, "Removing…", () -> port.remove(row.id()));
    }
  }

  /** Puts {@code row}'s manual command on the clipboard. */
  public void copyManualCommand(TrustTargetRow row) {
    String command = row.manualCommandProperty().get();
    if (!command.isEmpty()) {
      clipboard.accept(command);
    }
  }

  /** Writes the certificate to {@code file} in {@code format}, in the background. */
  public void export(Path file, ExportFormat format) {
    requireNonNull(file, "file");
    requireNonNull(format, "format");
    if (exporting.get()) {
      return;
    }
    exporting.set(true);
    inBackground(() -> port.export(file, format), outcome -> {
      exportOutcome.set(outcome);
      exporting.set(false);
    }, failure -> {
      exportOutcome.set(TrustOutcome.failed(failure));
      exporting.set(false);
    });
  }

  private void act(TrustTargetRow row, String progress, Supplier<TrustOutcome> action) {
    row.started(progress);
    String id = row.id();
    inBackground(() -> {
      TrustOutcome outcome;
      try {
        outcome = action.get();
      } catch (RuntimeException e) {
        outcome = TrustOutcome.failed(describe(e));
      }
      TrustTarget now;
      try {
        now = port.status(id);
      } catch (RuntimeException e) {
        now = row.target().with(TrustState.UNAVAILABLE, "status check failed: " + describe(e));
      }
      return new Done(outcome, now);
    }, done -> {
      row.update(done.target);
      row.finished(done.outcome);
    }, failure -> row.finished(TrustOutcome.failed(failure)));
  }

  private void merge(List<TrustTarget> found) {
    Map<String, TrustTargetRow> existing = new LinkedHashMap<>();
    for (TrustTargetRow row : targets) {
      existing.put(row.id(), row);
    }
    List<TrustTargetRow> rows = new java.util.ArrayList<>();
    for (TrustTarget target : found) {
      TrustTargetRow row = existing.remove(target.id());
      if (row == null) {
        row = new TrustTargetRow(target);
      } else if (!row.busyProperty().get()) {
        row.update(target); // a busy row gets its state from its own action
      }
      rows.add(row);
    }
    for (TrustTargetRow gone : existing.values()) {
      if (gone.busyProperty().get()) {
        rows.add(gone); // keep it until its action reports
      }
    }
    targets.setAll(rows);
  }

  private <T> void inBackground(Supplier<T> work, Consumer<T> onFx, Consumer<String> onFailure) {
    try {
      background.execute(() -> {
        T result;
        try {
          result = work.get();
        } catch (RuntimeException e) {
          String why = describe(e);
          fx.post(() -> onFailure.accept(why));
          return;
        }
        fx.post(() -> onFx.accept(result));
      });
    } catch (RejectedExecutionException e) {
      onFailure.accept("the dialog is closing: " + describe(e));
    }
  }

  private static String describe(RuntimeException e) {
    return e.getMessage() != null ? e.getMessage() : e.toString();
  }

  private static final class Done {
    final TrustOutcome outcome;
    final TrustTarget target;

    Done(TrustOutcome outcome, TrustTarget target) {
      this.outcome = outcome;
      this.target = target;
    }
  }
}
