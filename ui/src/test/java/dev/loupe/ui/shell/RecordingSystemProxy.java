package dev.loupe.ui.shell;

import dev.loupe.ui.sysproxy.SystemProxyControl;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A system-proxy port for the window's view tests: records each call and the thread it ran on.
 * (The real switching, against gsettings, is tested in the app module.)
 */
final class RecordingSystemProxy implements SystemProxyControl {
  final List<String> calls = new CopyOnWriteArrayList<>();
  private volatile boolean enabled;

  @Override
  public String backendName() {
    return "GNOME (gsettings)";
  }

  @Override
  public String unsupportedReason() {
    return null;
  }

  @Override
  public boolean isEnabled() {
    return enabled;
  }

  @Override
  public Result enable() {
    calls.add("enable on " + Thread.currentThread().getName());
    enabled = true;
    return new Result(true, "System proxy (GNOME) now points at 127.0.0.1:8080");
  }

  @Override
  public Result disable() {
    calls.add("disable on " + Thread.currentThread().getName());
    enabled = false;
    return new Result(true, "System proxy settings restored");
  }
}
