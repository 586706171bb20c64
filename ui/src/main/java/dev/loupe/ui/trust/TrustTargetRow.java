package dev.loupe.ui.trust;

import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.binding.StringBinding;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;

/**
 * One trust store in the dialog: its last known {@link TrustTarget}, whether an action is running,
 * and the outcome of the last action. FX-thread confined: only {@link TrustDialogViewModel}
 * changes it, on the FX thread.
 */
public final class TrustTargetRow {
  private final String id;
  private final ObjectProperty<TrustTarget> target = new SimpleObjectProperty<>();
  private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(false);
  private final ReadOnlyStringWrapper progress = new ReadOnlyStringWrapper("");
  private final ReadOnlyObjectWrapper<TrustOutcome> lastOutcome = new ReadOnlyObjectWrapper<>();
  private final StringBinding statusText;
  private final StringBinding manualCommand;
  private final BooleanBinding canInstall;
  private final BooleanBinding canRemove;

  TrustTargetRow(TrustTarget initial) {
    this.id = initial.id();
    this.target.set(initial);
    this.statusText = Bindings.createStringBinding(() -> statusText(target.get()), target);
    this.manualCommand = Bindings.createStringBinding(() -> manualCommand(target.get()), target);
    this.canInstall = Bindings.createBooleanBinding(
        () -> !busy.get() && target.get().state() == TrustState.NOT_TRUSTED
            && target.get().manualInstallCommand().isEmpty(), target, busy);
    this.canRemove = Bindings.createBooleanBinding(
        () -> !busy.get() && target.get().state() == TrustState.TRUSTED
            && target.get().manualRemoveCommand().isEmpty(), target, busy);
  }

  /** The target's id. */
  public String id() {
    return id;
  }

  /** The last known state of the target. */
  public ReadOnlyObjectProperty<TrustTarget> targetProperty() {
    return target;
  }

  /** The last known state of the target. */
  public TrustTarget target() {
    return target.get();
  }

  /** "Trusted", "Not trusted", "Unavailable: why". */
  public StringBinding statusTextProperty() {
    return statusText;
  }

  /** True while an install or removal of this target runs. */
  public ReadOnlyBooleanProperty busyProperty() {
    return busy.getReadOnlyProperty();
  }

  /** What the running action is ("Installing…"), empty when none runs. */
  public ReadOnlyStringProperty progressProperty() {
    return progress.getReadOnlyProperty();
  }

  /** The outcome of the last action on this target, or null before the first. */
  public ReadOnlyObjectProperty<TrustOutcome> lastOutcomeProperty() {
    return lastOutcome.getReadOnlyProperty();
  }

  /**
   * The terminal command to show instead of a button, or empty: the install command while not
   * trusted, the remove command while trusted, when Loupe cannot act itself.
   */
  public StringBinding manualCommandProperty() {
    return manualCommand;
  }

  /** Whether Install is offered now. */
  public BooleanBinding canInstallProperty() {
    return canInstall;
  }

  /** Whether Remove is offered now. */
  public BooleanBinding canRemoveProperty() {
    return canRemove;
  }

  void update(TrustTarget now) {
    target.set(now);
  }

  void started(String what) {
    busy.set(true);
    progress.set(what);
  }

  void finished(TrustOutcome outcome) {
    lastOutcome.set(outcome);
    progress.set("");
    busy.set(false);
  }

  static String statusText(TrustTarget t) {
    switch (t.state()) {
      case TRUSTED:
        return "Trusted";
      case NOT_TRUSTED:
        return "Not trusted";
      case UNAVAILABLE:
      default:
        return t.detail().isEmpty() ? "Unavailable" : "Unavailable: " + t.detail();
    }
  }

  private static String manualCommand(TrustTarget t) {
    switch (t.state()) {
      case TRUSTED:
        return t.manualRemoveCommand().orElse("");
      case NOT_TRUSTED:
        return t.manualInstallCommand().orElse("");
      case UNAVAILABLE:
      default:
        return "";
    }
  }

  @Override
  public String toString() {
    return "TrustTargetRow[" + target.get() + (busy.get() ? ", busy" : "") + "]";
  }
}
