package dev.loupe.ui.connect;

import dev.loupe.ui.common.FxThread;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The toolbar's "Open browser" and "Terminal" menus: the browsers found (looked up again each
 * time the menu opens), starting one, copying a shell's setup, opening a terminal. Actions run on
 * {@code background}; results come back through {@code fx} and are reported with {@code notice}
 * (the status bar).
 *
 * <p>Confined to the UI thread (except the port calls, which run on {@code background}).
 */
public final class ConnectViewModel {
  private final ConnectPort port;
  private final FxThread fx;
  private final Executor background;
  private final Consumer<String> notice;
  private final Consumer<String> clipboard;
  private final ObservableList<ConnectPort.BrowserChoice> browsers = FXCollections.observableArrayList();
  private final BooleanProperty busy = new SimpleBooleanProperty();

  /**
   * @param clipboard puts text on the clipboard (called on the UI thread)
   */
  public ConnectViewModel(ConnectPort port, FxThread fx, Executor background, Consumer<String> notice,
      Consumer<String> clipboard) {
    this.port = port;
    this.fx = fx;
    this.background = background;
    this.notice = notice;
    this.clipboard = clipboard;
  }

  /** Null when connecting clients works here, else why not (the controls are disabled then). */
  public String unsupportedReason() {
    return port.unsupportedReason();
  }

  /** The browsers found at the last {@link #refreshBrowsers()}. */
  public ObservableList<ConnectPort.BrowserChoice> browsers() {
    return browsers;
  }

  /** True while a browser or terminal is being started. */
  public ReadOnlyBooleanProperty busyProperty() {
    return busy;
  }

  /** Looks for installed browsers again (in the background); {@code then} runs on the UI thread after. */
  public void refreshBrowsers(Runnable then) {
    background.execute(() -> {
      List<ConnectPort.BrowserChoice> found;
      try {
        found = port.browsers();
      } catch (RuntimeException e) {
        found = List.of();
      }
      List<ConnectPort.BrowserChoice> result = found;
      fx.post(() -> {
        browsers.setAll(result);
        then.run();
      });
    });
  }

  /** Starts browser {@code id} on {@code url} (null or blank: a blank page). */
  public void openBrowser(ConnectPort.BrowserChoice browser, String url) {
    String target = url == null || url.isBlank() ? null : url.trim();
    run("Starting " + browser.name() + "…", () -> port.openBrowser(browser.id(), target));
  }

  /** Opens the desktop's terminal with the setup applied. */
  public void openTerminal() {
    run("Opening a terminal…", port::openTerminal);
  }

  /** Copies the setup for {@code shell} to the clipboard. */
  public void copySetup(String shell, String displayName) {
    background.execute(() -> {
      String script;
      try {
        script = port.terminalSetup(shell);
      } catch (RuntimeException e) {
        fx.post(() -> notice.accept("Cannot write the " + displayName + " setup: " + message(e)));
        return;
      }
      fx.post(() -> {
        clipboard.accept(script);
        notice.accept("Copied the " + displayName + " setup: paste it into a " + displayName
            + " terminal to route its clients through Loupe");
      });
    });
  }

  private void run(String starting, java.util.function.Supplier<ConnectPort.Outcome> action) {
    busy.set(true);
    notice.accept(starting);
    background.execute(() -> {
      ConnectPort.Outcome o;
      try {
        o = action.get();
      } catch (RuntimeException e) {
        o = new ConnectPort.Outcome(false, "Failed: " + message(e));
      }
      ConnectPort.Outcome outcome = o;
      fx.post(() -> {
        busy.set(false);
        notice.accept(outcome.message());
      });
    });
  }

  static String message(Throwable e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
