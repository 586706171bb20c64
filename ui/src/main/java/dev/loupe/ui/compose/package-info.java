/**
 * Replay and compose: replaying recorded flows in order over the same or a chosen protocol
 * ({@link dev.loupe.ui.compose.Replays}), the composer (its headless
 * {@link dev.loupe.ui.compose.ComposerViewModel}, the {@link dev.loupe.ui.compose.ComposerWindow},
 * and its persisted {@link dev.loupe.ui.compose.ComposerHistory}), and the table actions that open
 * them ({@link dev.loupe.ui.compose.ComposeActions}). Everything goes through the engine's
 * {@link dev.loupe.engine.api.intercept.Replayer}, which records the new flows.
 */
package dev.loupe.ui.compose;
