package dev.loupe.ui.connect;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An in-memory {@link ConnectPort} recording what it was asked. */
final class FakeConnectPort implements ConnectPort {
  final List<String> calls = new CopyOnWriteArrayList<>();
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
    return state;
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
