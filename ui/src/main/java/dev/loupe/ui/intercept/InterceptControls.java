package dev.loupe.ui.intercept;

import dev.loupe.engine.api.intercept.Breakpoint;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.flow.Flow;
import dev.loupe.ui.common.FxThread;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.collections.ListChangeListener;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuItem;
import javafx.scene.control.Separator;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.stage.Window;

/**
 * What the main window shows of breakpoints and rules, in one place so the window's own code only
 * places it: the toolbar group ("Breakpoints" switch, "Rules…"), the flow table's context-menu
 * items ("Break on…", "Edit paused flow…"), the status bar's "N paused" link, and the two windows
 * (rules, paused flows), made when first needed. The paused-flows window opens by itself when a
 * flow pauses. Switching breakpoints off releases every paused flow unchanged.
 *
 * <p>Ids: {@code breakpoints} (toggle), {@code rules} (button), {@code break-on} (menu) with
 * {@code break-on-request} and {@code break-on-response}, {@code edit-paused}, {@code
 * status-paused}. UI thread only.
 */
public final class InterceptControls implements AutoCloseable {
  private final InterceptService service;
  private final Supplier<Window> owner;
  private final Consumer<String> notice;
  private final InterceptListModel<Rule> rules;
  private final InterceptListModel<Breakpoint> breakpoints;
  private final PausedFlowsViewModel paused;
  private RulesWindow rulesWindow;
  private PausedFlowsWindow pausedWindow;

  /**
   * @param owner   the main window (null until it is shown)
   * @param notice  shows a short outcome in the status bar
   */
  public InterceptControls(InterceptService service, FxThread fx, Supplier<Window> owner,
      Consumer<String> notice) {
    this.service = service;
    this.owner = owner;
    this.notice = notice;
    this.rules = new InterceptListModel<>(service.rules(), fx, "rule");
    this.breakpoints = new InterceptListModel<>(service.breakpoints(), fx, "breakpoint");
    this.paused = new PausedFlowsViewModel(service, fx);
    paused.pausedFlows().addListener((ListChangeListener<dev.loupe.engine.api.intercept.PausedFlow>) c -> {
      boolean added = false;
      while (c.next()) {
        added |= c.wasAdded();
      }
      if (added && (pausedWindow == null || !pausedWindow.stage().isShowing())) {
        pausedWindow().show();
      }
    });
  }

  /** A separator, the "Breakpoints" switch and the "Rules…" button. */
  public List<Node> toolbarItems() {
    ToggleButton toggle = new ToggleButton("Breakpoints");
    toggle.setId("breakpoints");
    toggle.setTooltip(new Tooltip("Pause flows that match a breakpoint (off: none pause, and paused flows go on unchanged)"));
    toggle.selectedProperty().bindBidirectional(breakpoints.activeProperty());
    toggle.selectedProperty().addListener((o, was, on) -> {
      if (!on) {
        int n = service.releaseAll();
        if (n > 0) {
          notice.accept("Breakpoints off: " + n + " paused " + (n == 1 ? "flow" : "flows") + " resumed unchanged");
        }
      }
    });
    Button rulesButton = new Button("Rules…");
    rulesButton.setId("rules");
    rulesButton.setTooltip(new Tooltip("Rules (Map Local, Map Remote, Rewrite, Block, Throttle) and breakpoints"));
    rulesButton.setOnAction(e -> rulesWindow().show());
    return List.of(new Separator(Orientation.VERTICAL), toggle, rulesButton);
  }

  /**
   * "Break on…" (a request or response breakpoint for the selected flow's host) and "Edit paused
   * flow…" (shown while the selected flow is paused), for the flow table's context menu.
   */
  public List<MenuItem> contextMenuItems(Supplier<List<Flow>> selected) {
    MenuItem onRequest = new MenuItem();
    onRequest.setId("break-on-request");
    onRequest.setOnAction(e -> breakOn(selected.get(), true));
    MenuItem onResponse = new MenuItem();
    onResponse.setId("break-on-response");
    onResponse.setOnAction(e -> breakOn(selected.get(), false));
    Menu menu = new Menu("Break on…", null, onRequest, onResponse);
    menu.setId("break-on");
    MenuItem edit = new MenuItem("Edit paused flow…");
    edit.setId("edit-paused");
    edit.setOnAction(e -> {
      Flow f = first(selected.get());
      if (f != null) {
        pausedWindow().show(f.id());
      }
    });
    menu.setOnShowing(e -> update(selected.get(), onRequest, onResponse, menu));
    // the menu's own "showing" comes late; the context menu's parent popup shows first
    menu.parentPopupProperty().addListener((o, was, popup) -> {
      if (popup != null) {
        popup.addEventHandler(javafx.stage.WindowEvent.WINDOW_SHOWING, ev -> {
          update(selected.get(), onRequest, onResponse, menu);
          Flow f = first(selected.get());
          edit.setVisible(f != null && service.paused(f.id()) != null);
        });
      }
    });
    update(List.of(), onRequest, onResponse, menu);
    edit.setVisible(false);
    return List.of(new javafx.scene.control.SeparatorMenuItem(), menu, edit);
  }

  private static void update(List<Flow> selected, MenuItem onRequest, MenuItem onResponse, Menu menu) {
    Flow f = first(selected);
    String host = f == null ? null : f.request().host();
    menu.setDisable(host == null);
    onRequest.setText("Requests to " + (host == null ? "this host" : host));
    onResponse.setText("Responses from " + (host == null ? "this host" : host));
  }

  /** The status bar's "N paused" link (hidden while none is paused); opens the paused flows. */
  public Node statusLabel() {
    Hyperlink link = new Hyperlink();
    link.setId("status-paused");
    link.getStyleClass().add("status-paused");
    link.textProperty().bind(paused.countProperty().map(n -> PausedFlowsViewModel.describe(n.intValue())));
    link.visibleProperty().bind(paused.countProperty().greaterThan(0));
    link.managedProperty().bind(link.visibleProperty());
    link.setOnAction(e -> pausedWindow().show());
    return link;
  }

  /** Adds a breakpoint for the host of the first of {@code flows}; the filter is {@code ~d ^host$}. */
  public Breakpoint breakOn(List<Flow> flows, boolean request) {
    Flow f = first(flows);
    if (f == null) {
      return null;
    }
    String host = f.request().host();
    Breakpoint b = new Breakpoint(null, hostFilter(host), request, !request, true);
    String problem = breakpoints.add(b);
    if (problem != null) {
      notice.accept("Could not add the breakpoint: " + problem);
      return null;
    }
    breakpoints.activeProperty().set(true);
    notice.accept("Breakpoint added: " + (request ? "requests to " : "responses from ") + host);
    return b;
  }

  /** {@code ~d ^api\.example\.com$}: exactly that host (regex characters escaped). */
  static String hostFilter(String host) {
    StringBuilder sb = new StringBuilder("~d ^");
    for (char c : host.toCharArray()) {
      if ("\\.[]{}()*+?^$|".indexOf(c) >= 0) {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.append('$').toString();
  }

  private static Flow first(List<Flow> flows) {
    for (Flow f : flows) {
      if (f.request() != null && !f.isTunnel()) {
        return f;
      }
    }
    return null;
  }

  public InterceptListModel<Rule> rules() {
    return rules;
  }

  public InterceptListModel<Breakpoint> breakpoints() {
    return breakpoints;
  }

  public PausedFlowsViewModel paused() {
    return paused;
  }

  /** The rules window (made on first use). */
  public RulesWindow rulesWindow() {
    if (rulesWindow == null) {
      rulesWindow = new RulesWindow(owner.get(), rules, breakpoints);
    }
    return rulesWindow;
  }

  /** The paused flows window (made on first use). */
  public PausedFlowsWindow pausedWindow() {
    if (pausedWindow == null) {
      pausedWindow = new PausedFlowsWindow(owner.get(), paused, service);
    }
    return pausedWindow;
  }

  /**
   * Stops listening and closes the windows (any thread; it never waits). Paused flows are left to
   * the app, which releases them all on exit.
   */
  @Override
  public void close() {
    paused.close();
    rules.close();
    breakpoints.close();
    Runnable hide = () -> {
      if (rulesWindow != null) {
        rulesWindow.stage().hide();
      }
      if (pausedWindow != null) {
        pausedWindow.stage().hide();
      }
    };
    if (javafx.application.Platform.isFxApplicationThread()) {
      hide.run();
    } else {
      javafx.application.Platform.runLater(hide); // never wait for the UI thread here
    }
  }
}
