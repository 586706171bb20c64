package dev.loupe.app.sysproxy;

import java.util.Map;

/**
 * One way of changing the operating system's proxy settings (GNOME, KDE, macOS, Windows). A
 * backend is stateless: what it changes it first {@link #capture() captures} as a map of setting
 * names to values (null = not set), which the service saves to the state file, and {@link
 * #restore(Map) restore} writes those values back exactly. Backends run tools only through their
 * {@link CommandRunner}.
 */
public interface ProxyBackend {

  /** Stable id stored in the state file (so a restore uses the backend that switched): gnome, kde5, kde6, macos, windows. */
  String id();

  /** For people: "GNOME (gsettings)", "KDE (kioslaverc)"... */
  String displayName();

  /**
   * Reads the settings that {@link #apply} will change. Fails (changing nothing) when they cannot
   * be read or when they could not be restored exactly afterwards.
   */
  Map<String, String> capture() throws SystemProxyException;

  /**
   * Points the HTTP and HTTPS proxy at {@code target}, bypassing {@link ProxyTarget#LOCAL_BYPASS}
   * plus what {@code previous} (from {@link #capture()}) bypassed. May fail half-way; the caller
   * then calls {@link #restore(Map)} with {@code previous}.
   */
  void apply(ProxyTarget target, Map<String, String> previous) throws SystemProxyException;

  /** Writes {@code saved} (from {@link #capture()}) back. Idempotent. */
  void restore(Map<String, String> saved) throws SystemProxyException;
}
