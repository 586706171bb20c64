package dev.loupe.ui.connect;

import java.util.List;

/**
 * What the window's connect controls need from the rest of Loupe; the app implements it on the
 * browser and terminal launchers, the remote-access settings and the running proxy.
 *
 * <p>Methods marked <i>blocking</i> start processes, write files or restart the proxy: the view
 * models call them on a background thread. Failures come back as an {@link Outcome} (or, for
 * {@link #applyRemoteAccess}, an exception whose message is shown); a {@code RuntimeException} that
 * escapes anyway is shown as a failure.
 */
public interface ConnectPort {
  /** A browser found on this machine: {@code id} for {@link #openBrowser}, {@code name} to show. */
  record BrowserChoice(String id, String name) {}

  /** How an action went, in words for the status bar. */
  record Outcome(boolean ok, String message) {}

  /**
   * Remote access as it is (or as the user wants it).
   *
   * @param enabled     Loupe listens on every interface (the LAN), not only on loopback
   * @param requireAuth remote clients must log in
   * @param port        the proxy's port
   * @param username    the remote clients' user name ({@code ""} for none yet; null is read as that)
   * @param password    its password (likewise)
   * @param addresses   this machine's LAN addresses a device can use (IPv4 first; none: an empty list,
   *                    and null is read as that)
   */
  record RemoteAccess(boolean enabled, boolean requireAuth, String username, String password, int port,
      List<String> addresses) {
    public RemoteAccess {
      username = username == null ? "" : username;
      password = password == null ? "" : password;
      addresses = addresses == null ? List.of() : List.copyOf(addresses);
    }
  }

  /** Why connecting clients is not available (e.g. reverse mode), or null when it is. Fast. */
  String unsupportedReason();

  /** The browsers installed here. <i>Blocking</i> (looks at the disk). */
  List<BrowserChoice> browsers();

  /**
   * Starts browser {@code id} with a temporary profile on a listener of its own (its flows carry
   * its name), opening {@code url} (null: a blank page). <i>Blocking.</i>
   */
  Outcome openBrowser(String id, String url);

  /** Browsers started from here that are still running, e.g. {@code "Firefox (pid 4242)"}. Fast. */
  List<String> runningBrowsers();

  /** The terminal setup for {@code shell} ({@code bash}, {@code zsh}, {@code fish}, {@code pwsh}). <i>Blocking.</i> */
  String terminalSetup(String shell);

  /** Opens the desktop's terminal with the setup applied (its flows are tagged "Terminal"). <i>Blocking.</i> */
  Outcome openTerminal();

  /** Remote access as it is now. Fast. */
  RemoteAccess remoteAccess();

  /**
   * Applies {@code wanted} (saves it and restarts the proxy on the new address and credentials);
   * returns the state now in force. <i>Blocking.</i>
   *
   * @throws IllegalArgumentException with a message for the user (bad credentials, port taken)
   */
  RemoteAccess applyRemoteAccess(RemoteAccess wanted);

  /** The newest refused clients, oldest first, one line each. Fast. */
  List<String> refusals();

  /**
   * Calls {@code listener} (on any thread) with where the proxy listens, in words for the status bar,
   * each time applying remote access moved it: the LAN addresses and port and whether clients must
   * log in while it is on (e.g. {@code "192.168.1.23:8080 (remote access, login required)"}), the
   * loopback address once it is off. The default never calls it (nothing moves the proxy).
   */
  default void onListening(java.util.function.Consumer<String> listener) {
  }

  /** A port for a window where none of this is available. */
  static ConnectPort unsupported(String reason) {
    return new ConnectPort() {
      @Override public String unsupportedReason() { return reason; }
      @Override public List<BrowserChoice> browsers() { return List.of(); }
      @Override public Outcome openBrowser(String id, String url) { return new Outcome(false, reason); }
      @Override public List<String> runningBrowsers() { return List.of(); }
      @Override public String terminalSetup(String shell) { return ""; }
      @Override public Outcome openTerminal() { return new Outcome(false, reason); }
      @Override public RemoteAccess remoteAccess() { return new RemoteAccess(false, true, "", "", 0, List.of()); }
      @Override public RemoteAccess applyRemoteAccess(RemoteAccess wanted) {
        throw new IllegalArgumentException(reason);
      }
      @Override public List<String> refusals() { return List.of(); }
    };
  }
}
