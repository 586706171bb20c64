/**
 * The filter language shared by the view filter, breakpoints, rules and export: mitmproxy-style
 * atoms ({@code ~d api}, {@code ~m POST}), boolean operators and typed comparisons
 * ({@code status>=400}, {@code size>1MB}). {@link dev.loupe.engine.filter.Filter#parse} compiles an
 * expression into an immutable, thread-safe predicate over {@link dev.loupe.engine.flow.Flow}s; the
 * language itself is described in {@code docs/FILTERS.md}.
 */
package dev.loupe.engine.filter;
