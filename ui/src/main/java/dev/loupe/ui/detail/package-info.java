/**
 * The flow detail pane: request and response (headers, body viewers chosen by content type, raw
 * text), connection and TLS, a timing waterfall and WebSocket messages.
 *
 * <p>Pure parts (decoding, parsing, lexing, formatting) are plain functions; {@link
 * dev.loupe.ui.detail.DetailViewModel} holds the state as JavaFX properties and knows no nodes;
 * {@link dev.loupe.ui.detail.DetailPane} and its views bind to it. Decoding and rendering bodies run
 * on a background executor, so a large body never blocks the UI thread.
 */
package dev.loupe.ui.detail;
