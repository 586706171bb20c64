/**
 * {@code loupe ctl}, the command-line client of the control API
 * ({@link dev.loupe.app.ctl.CtlCommand}, {@code CtlIntercept}, {@code CtlOutput}), and the ways to
 * reach a running Loupe that it shares with {@code loupe mcp}: {@link dev.loupe.app.ctl.LocalLoupe}
 * (found through {@code CONFDIR/control.json}) and {@link dev.loupe.app.ctl.HttpControlChannel},
 * and {@link dev.loupe.app.ctl.ConnectHelp} (how to send a client through Loupe).
 * Documented in README.md ("{@code loupe ctl}").
 */
package dev.loupe.app.ctl;
