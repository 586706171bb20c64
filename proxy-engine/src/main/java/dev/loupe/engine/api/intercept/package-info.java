/**
 * Interception as the window, the control API and the app see it: the configuration ({@link
 * dev.loupe.engine.api.intercept.Rule}, {@link dev.loupe.engine.api.intercept.RuleAction}, {@link
 * dev.loupe.engine.api.intercept.RewriteOp}, {@link dev.loupe.engine.api.intercept.Breakpoint} in
 * {@link dev.loupe.engine.api.intercept.InterceptList}s), the editable drafts of a message, and the
 * services ({@link dev.loupe.engine.api.intercept.InterceptService}, {@link
 * dev.loupe.engine.api.intercept.PausedFlow}, {@link dev.loupe.engine.api.intercept.Replayer}). The
 * interceptor chain that carries rules, breakpoints and plugins out is internal ({@code
 * internal.intercept}); {@code InterceptService.create} finds it as a {@code ServiceLoader} service.
 */
package dev.loupe.engine.api.intercept;
