/**
 * Switching the operating system's proxy settings to Loupe and back, crash-safe.
 *
 * <p>{@link dev.loupe.app.sysproxy.SystemProxyService} is the entry point: it picks a {@link
 * dev.loupe.app.sysproxy.ProxyBackend} for this OS and desktop (GNOME gsettings, KDE kioslaverc,
 * macOS networksetup, Windows WinINET registry), saves the previous settings to a state file in
 * Loupe's configuration directory before it changes anything, and restores them on exit, on
 * window close, on SIGTERM/SIGINT, and after a crash on the next start. Backends never run a tool
 * themselves: they go through a {@link dev.loupe.app.sysproxy.CommandRunner}, so their command
 * lines are unit-tested with a recording runner on any OS.
 */
package dev.loupe.app.sysproxy;
