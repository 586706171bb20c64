package dev.loupe.ui.intercept;

import dev.loupe.engine.api.intercept.Breakpoint;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.filter.FilterSyntaxException;
import javafx.beans.Observable;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/**
 * The state of the "breakpoint" dialog (a list entry, not a paused flow): filter, request,
 * response, enabled, validated on every change like {@link RuleEditorViewModel}. UI thread only.
 */
public final class BreakpointEntryViewModel {
  private final String id;
  private final StringProperty filter = new SimpleStringProperty(this, "filter", "");
  private final BooleanProperty request = new SimpleBooleanProperty(this, "request", true);
  private final BooleanProperty response = new SimpleBooleanProperty(this, "response", false);
  private final BooleanProperty enabled = new SimpleBooleanProperty(this, "enabled", true);
  private final ReadOnlyStringWrapper filterError = new ReadOnlyStringWrapper(this, "filterError", "");
  private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper(this, "error", "");
  private final ReadOnlyBooleanWrapper valid = new ReadOnlyBooleanWrapper(this, "valid");

  /** Edits {@code existing}, or a new request breakpoint when null. */
  public BreakpointEntryViewModel(Breakpoint existing) {
    id = existing == null ? null : existing.id();
    if (existing != null) {
      filter.set(existing.filter());
      request.set(existing.request());
      response.set(existing.response());
      enabled.set(existing.enabled());
    }
    for (Observable o : new Observable[] {filter, request, response, enabled}) {
      o.addListener(x -> validate());
    }
    validate();
  }

  public boolean editing() {
    return id != null;
  }

  public StringProperty filterProperty() {
    return filter;
  }

  public BooleanProperty requestProperty() {
    return request;
  }

  public BooleanProperty responseProperty() {
    return response;
  }

  public BooleanProperty enabledProperty() {
    return enabled;
  }

  public ReadOnlyStringProperty filterErrorProperty() {
    return filterError.getReadOnlyProperty();
  }

  public ReadOnlyStringProperty errorProperty() {
    return error.getReadOnlyProperty();
  }

  public ReadOnlyBooleanProperty validProperty() {
    return valid.getReadOnlyProperty();
  }

  /** Re-checks the fields; true when the breakpoint can be saved. */
  public boolean validate() {
    String fe = "";
    try {
      Filter.parse(filter.get() == null ? "" : filter.get());
    } catch (FilterSyntaxException e) {
      fe = e.getMessage();
    }
    filterError.set(fe);
    error.set(request.get() || response.get() ? "" : "Pause requests, responses or both");
    valid.set(fe.isEmpty() && error.get().isEmpty());
    return valid.get();
  }

  /** The breakpoint as edited (keeping the edited one's id), or null while invalid. */
  public Breakpoint build() {
    return validate() ? new Breakpoint(id, filter.get().trim(), request.get(), response.get(), enabled.get()) : null;
  }
}
