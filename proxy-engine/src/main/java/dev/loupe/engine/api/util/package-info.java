/**
 * Small helpers the engine's packages, the app and the window share: {@link
 * dev.loupe.engine.api.util.ByteSizes} (byte counts as people write them) and {@link
 * dev.loupe.engine.api.util.AtomicFiles} (a file replaced whole or not at all). A leaf: it depends on
 * nothing of Loupe, so any package may use it without a cycle.
 */
package dev.loupe.engine.api.util;
