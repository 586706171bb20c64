/**
 * Breakpoints and rules in the desktop UI (issue 7): the toolbar switch, the "Break on…" menu, the
 * rules window (rules and breakpoints, import/export) with an editor per rule type, and the editor
 * of paused flows (one window listing every paused flow, editing the selected one).
 *
 * <p>Everything drives the one {@link dev.loupe.engine.api.intercept.InterceptService} the engine and
 * the control API share. View models ({@code *ViewModel}, {@code *Model}, {@link
 * dev.loupe.ui.common.HeaderEntry}) hold JavaFX properties and no nodes, so they are tested
 * without a display; they are changed on the UI thread only, and events from the service (a flow
 * paused or released, a list changed by the control API) hop there through {@link
 * dev.loupe.ui.common.FxThread}. Nothing here waits for the engine: a release only completes the
 * paused flow's decision, so closing the window and {@code releaseAll()} never block.
 *
 * <p>Entry point for the main window: {@link dev.loupe.ui.intercept.InterceptControls}.
 */
package dev.loupe.ui.intercept;
