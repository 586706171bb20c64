package dev.loupe.engine.api.intercept;

import dev.loupe.engine.filter.Filter;

/**
 * Stop flows matching {@code filter} before the request goes upstream ({@code request}) and/or
 * before the response goes back ({@code response}), until the user resumes, edits, aborts or
 * answers them (see {@link PausedFlow}).
 *
 * @param id       stable identifier; unique in a {@link InterceptList}
 * @param filter   which flows, in the filter language; blank = all
 * @param request  pause requests
 * @param response pause responses
 * @param enabled  off breakpoints are kept but do nothing
 */
public record Breakpoint(String id, String filter, boolean request, boolean response, boolean enabled)
    implements InterceptList.Entry {
  public Breakpoint {
    id = id == null || id.isBlank() ? InterceptList.newId() : id;
    filter = filter == null ? "" : filter;
  }

  @Override
  public void validate() {
    Filter.parse(filter);
    if (!request && !response) {
      throw new IllegalArgumentException("a breakpoint pauses requests, responses or both");
    }
  }

  @Override
  public Breakpoint withEnabled(boolean on) {
    return new Breakpoint(id, filter, request, response, on);
  }

  @Override
  public String name() {
    return (filter.isBlank() ? "~all" : filter) + " (" + (request && response ? "request+response"
        : request ? "request" : "response") + ")";
  }
}
