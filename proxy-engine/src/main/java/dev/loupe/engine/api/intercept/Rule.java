package dev.loupe.engine.api.intercept;

import dev.loupe.engine.filter.Filter;
import java.util.Objects;

/**
 * A persisted rule: for flows matching {@code filter}, do {@code action}. Rules apply in list order;
 * each one that applies is recorded on the flow ({@link dev.loupe.engine.flow.Flow#modifiedBy()}).
 *
 * @param id      stable identifier (for the API and the UI); unique in a {@link InterceptList}
 * @param name    what the user calls it (shown as "modified by rule NAME")
 * @param enabled off rules are kept but do nothing
 * @param filter  which flows, in the filter language ({@code ~d api.example.com & ~m POST}); blank = all
 * @param action  what it does
 */
public record Rule(String id, String name, boolean enabled, String filter, RuleAction action)
    implements InterceptList.Entry {
  public Rule {
    id = id == null || id.isBlank() ? InterceptList.newId() : id;
    name = name == null || name.isBlank() ? (action == null ? "rule" : action.describe()) : name;
    filter = filter == null ? "" : filter;
    Objects.requireNonNull(action, "a rule needs an action");
  }

  @Override
  public void validate() {
    Filter.parse(filter);
    action.validate();
  }

  @Override
  public Rule withEnabled(boolean on) {
    return new Rule(id, name, on, filter, action);
  }
}
