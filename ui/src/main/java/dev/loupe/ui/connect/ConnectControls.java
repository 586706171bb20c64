package dev.loupe.ui.connect;

import java.util.List;
import java.util.function.Supplier;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.TextInputDialog;
import javafx.scene.control.Tooltip;
import javafx.stage.Window;

/**
 * The toolbar's connect controls: <b>Open browser ▾</b> (each browser found, with a fresh profile
 * that trusts Loupe; "…at a URL" asks for the page first), <b>Terminal ▾</b> (open the desktop's
 * terminal set up, or copy the setup for bash, zsh, fish or PowerShell) and <b>Remote devices…</b>.
 */
public final class ConnectControls {
  private static final List<String[]> SHELLS = List.of(new String[] {"bash", "bash"}, new String[] {"zsh", "zsh"},
      new String[] {"fish", "fish"}, new String[] {"pwsh", "PowerShell"});

  private final ConnectViewModel vm;
  private final ConnectPort port;
  private final Supplier<Window> owner;
  private final MenuButton browsers = new MenuButton("Open browser");
  private final MenuButton terminal = new MenuButton("Terminal");
  private final Button remote = new Button("Remote devices…");

  public ConnectControls(ConnectViewModel vm, ConnectPort port, Supplier<Window> owner) {
    this.vm = vm;
    this.port = port;
    this.owner = owner;
    browsers.setId("open-browser");
    terminal.setId("terminal");
    remote.setId("remote-devices");
    String unsupported = vm.unsupportedReason();
    if (unsupported != null) {
      for (javafx.scene.control.Control c : List.of(browsers, terminal, remote)) {
        c.setDisable(true);
        c.setTooltip(new Tooltip("Not available: " + unsupported));
      }
      return;
    }
    browsers.setTooltip(new Tooltip("Start a browser with a fresh profile that uses Loupe and trusts its CA"
        + " (nothing on the system changes; the profile is deleted when it closes)"));
    browsers.getItems().add(new MenuItem("Looking for browsers…"));
    browsers.setOnShowing(e -> vm.refreshBrowsers(this::fillBrowsers));
    vm.refreshBrowsers(this::fillBrowsers);
    browsers.disableProperty().bind(vm.busyProperty());

    MenuItem open = new MenuItem("Open terminal");
    open.setId("open-terminal");
    open.setOnAction(e -> vm.openTerminal());
    Menu copy = new Menu("Copy setup");
    copy.setId("copy-setup");
    for (String[] s : SHELLS) {
      MenuItem item = new MenuItem(s[1]);
      item.setId("copy-setup-" + s[0]);
      item.setOnAction(e -> vm.copySetup(s[0], s[1]));
      copy.getItems().add(item);
    }
    terminal.getItems().addAll(open, copy);
    terminal.setTooltip(new Tooltip("A terminal whose curl, git, Python, Node, Go, Ruby, npm, pip and Java use Loupe"));

    remote.setTooltip(new Tooltip("Let phones and other machines use Loupe: LAN access, password, QR code"));
    remote.setOnAction(e -> RemoteDevicesDialog.show(owner.get(), port));
  }

  private void fillBrowsers() {
    browsers.getItems().clear();
    if (vm.browsers().isEmpty()) {
      MenuItem none = new MenuItem("No Chromium, Chrome, Edge, Brave or Firefox found");
      none.setDisable(true);
      browsers.getItems().add(none);
      return;
    }
    for (ConnectPort.BrowserChoice b : vm.browsers()) {
      MenuItem item = new MenuItem(b.name());
      item.setId("browser-" + b.id());
      item.setOnAction(e -> vm.openBrowser(b, null));
      browsers.getItems().add(item);
    }
    browsers.getItems().add(new SeparatorMenuItem());
    for (ConnectPort.BrowserChoice b : vm.browsers()) {
      MenuItem item = new MenuItem(b.name() + " at a URL…");
      item.setOnAction(e -> {
        TextInputDialog ask = new TextInputDialog("https://");
        ask.initOwner(owner.get());
        ask.setTitle("Open " + b.name());
        ask.setHeaderText("Open " + b.name() + " through Loupe at:");
        ask.showAndWait().ifPresent(url -> vm.openBrowser(b, url));
      });
      browsers.getItems().add(item);
    }
    List<String> running = port.runningBrowsers();
    if (!running.isEmpty()) {
      browsers.getItems().add(new SeparatorMenuItem());
      MenuItem r = new MenuItem("Running: " + String.join(", ", running));
      r.setDisable(true);
      browsers.getItems().add(r);
    }
  }

  /** The toolbar items, in order. */
  public List<Node> toolbarItems() {
    return List.of(browsers, terminal, remote);
  }
}
