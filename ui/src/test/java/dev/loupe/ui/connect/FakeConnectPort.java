package dev.loupe.ui.connect;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An in-memory {@link ConnectPort} recording what it was asked. Applying remote access tells the
 * {@link #onListening} listeners (from the applying thread, as the app's does) where a proxy on
 * port {@code state.port()} would listen: every LAN address with the port and the login rule while
 * on, {@code 127.0.0.1:PORT} while off.
 */
public final class FakeConnectPort implements ConnectPort {
  public final List<String> calls = new CopyOnWriteArrayList<>();
  private final List<java.util.function.Consumer<String>> listening = new CopyOnWriteArrayList<>();
  volatile List<BrowserChoice> browsers = List.of(new BrowserChoice("chromium", "Chromium"),
      new BrowserChoice("firefox", "Firefox"));
  volatile RemoteAccess state = new RemoteAccess(false, true, "loupe", "Tr7pQx2mKz9wHa4N", 8080,
      List.of("192.168.1.23", "fd00::23"));
  volatile RuntimeException failNext;
  final List<String> refusals = new ArrayList<>();

  @Override
  public String unsupportedReason() {
    return null;
  }

  @Override
  public List<BrowserChoice> browsers() {
    calls.add("browsers");
    return browsers;
  }

  @Override
  public Outcome openBrowser(String id, String url) {
    calls.add("open " + id + " " + url);
    throwIfAsked();
    return new Outcome(true, "Started " + id);
  }

  @Override
  public List<String> runningBrowsers() {
    return List.of();
  }

  @Override
  public String terminalSetup(String shell) {
    calls.add("setup " + shell);
    throwIfAsked();
    return "# setup for " + shell + "\n";
  }

  @Override
  public Outcome openTerminal() {
    calls.add("terminal");
    return new Outcome(true, "Opened xterm");
  }

  @Override
  public RemoteAccess remoteAccess() {
    return state;
  }

  @Override
  public RemoteAccess applyRemoteAccess(RemoteAccess wanted) {
    calls.add("apply " + wanted.enabled() + " " + wanted.requireAuth() + " " + wanted.username() + " "
        + wanted.password());
    throwIfAsked();
    state = new RemoteAccess(wanted.enabled(), wanted.requireAuth(), wanted.username(), wanted.password(),
        state.port(), state.addresses());
    String text = !state.enabled() ? "127.0.0.1:" + state.port()
        : String.join(", ", state.addresses().stream()
            .map(a -> (a.contains(":") ? "[" + a + "]" : a) + ":" + state.port()).toList())
            + (state.requireAuth() ? " (remote access, login required)" : " (remote access, NO login)");
    listening.forEach(l -> l.accept(text));
    return state;
  }

  @Override
  public void onListening(java.util.function.Consumer<String> listener) {
    listening.add(listener);
  }

  @Override
  public List<String> refusals() {
    synchronized (refusals) {
      return List.copyOf(refusals);
    }
  }

  private void throwIfAsked() {
    RuntimeException e = failNext;
    failNext = null;
    if (e != null) {
      throw e;
    }
  }
}
