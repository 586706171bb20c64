/**
 * Sessions: every flow of a capture kept in an SQLite file ({@code .loupe}), read back page by page
 * for the flow table, searched with the filter language, imported from and exported to HAR. The
 * desktop window, the control API, headless {@code --session} and {@code loupe convert} all go
 * through {@link dev.loupe.engine.api.session.Session}. The SQL lives in the engine's internal store.
 */
package dev.loupe.engine.api.session;
