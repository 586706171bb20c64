/**
 * What a message body is, for the views that show or compare it: its {@link
 * dev.loupe.ui.body.ContentType}, its bytes with the content codings undone ({@link
 * dev.loupe.ui.body.ContentDecoder}, {@link dev.loupe.ui.body.DecodedBody}), and JSON parsed for
 * display ({@link dev.loupe.ui.body.JsonDocument}). A leaf the detail pane, the diff views, the
 * composer and the breakpoint editor share; it knows no JavaFX.
 */
package dev.loupe.ui.body;
