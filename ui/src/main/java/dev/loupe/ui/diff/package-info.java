/**
 * Comparing two flows, or one flow as it came with what a rule or breakpoint made of it: a line diff
 * ({@link dev.loupe.ui.diff.LineDiff}, Myers), a header comparison ({@link dev.loupe.ui.diff.HeaderDiff}),
 * bodies as text or by digest ({@link dev.loupe.ui.diff.BodyComparison}), the headless
 * {@link dev.loupe.ui.diff.DiffViewModel}, and {@link dev.loupe.ui.diff.DiffView} /
 * {@link dev.loupe.ui.diff.DiffWindow} on top.
 */
package dev.loupe.ui.diff;
