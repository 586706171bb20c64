/**
 * Requests Loupe sends itself (replay and composer, {@link dev.loupe.engine.api.intercept.Replayer}):
 * {@link dev.loupe.engine.internal.replay.Replays} records each as a new flow and runs it through the
 * engine's server-leg connector on one of the engine's event loops.
 */
package dev.loupe.engine.internal.replay;
