/**
 * {@link dev.loupe.engine.internal.session.SessionFile}, the implementation of {@code
 * api.session.Session} on the engine's SQLite store ({@code internal.store}), registered as its
 * {@code ServiceLoader} factory.
 */
package dev.loupe.engine.internal.session;
