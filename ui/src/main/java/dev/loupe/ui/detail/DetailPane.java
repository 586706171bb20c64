package dev.loupe.ui.detail;

import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.StackPane;

/**
 * The flow detail pane, bound to a {@link DetailViewModel}: a title line and tabs Request,
 * Response, Connection, Timing, and WebSocket (only for WebSocket flows). Shows a hint while no
 * flow is selected. Styles come from {@code loupe.css}, which the scene must carry
 * ({@code MainWindow.scene()} adds it).
 *
 * <p>Ids for tests and styling: {@code detail-pane}, {@code detail-title}, {@code detail-tabs},
 * tabs {@code tab-request}, {@code tab-response}, {@code tab-connection}, {@code tab-timing},
 * {@code tab-websocket}; inside them see {@link MessageView}, {@link BodyView}.
 */
public final class DetailPane {
  private final StackPane root = new StackPane();
  private final TabPane tabs = new TabPane();
  private final Tab webSocket;

  public DetailPane(DetailViewModel vm) {
    Executor images = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "loupe-ui-image");
      t.setDaemon(true);
      return t;
    });
    root.setId("detail-pane");
    root.getStyleClass().add("detail-pane");
    Label title = new Label();
    title.setId("detail-title");
    title.getStyleClass().add("detail-title");
    title.textProperty().bind(vm.titleProperty());

    Tab request = tab("Request", "tab-request", new MessageView(vm.request(), images).node());
    Tab response = tab("Response", "tab-response", new MessageView(vm.response(), images).node());
    Tab connection = tab("Connection", "tab-connection", Tables.nameValue("connection-table", vm.connectionRows(),
        InfoRow::label, InfoRow::value, InfoRow::section));
    ScrollPane chart = new ScrollPane(new TimingChart(vm.timingPhases(), vm.totalMsProperty()));
    chart.setFitToWidth(true);
    Tab timing = tab("Timing", "tab-timing", chart);
    webSocket = tab("WebSocket", "tab-websocket", new WebSocketView(vm, images).node());
    tabs.setId("detail-tabs");
    tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
    tabs.getTabs().addAll(request, response, connection, timing);
    vm.webSocketProperty().addListener((o, was, now) -> showWebSocketTab(now));

    BorderPane content = new BorderPane(tabs);
    content.setTop(title);
    Label hint = new Label("Select a flow to see its request, response, connection and timing");
    hint.getStyleClass().add("detail-hint");
    root.getChildren().setAll(vm.flowProperty().get() == null ? hint : content);
    vm.flowProperty().addListener((o, was, now) -> root.getChildren().setAll(now == null ? hint : content));
    tabs.getSelectionModel().select(response); // what most users look at first; their later choice stays
  }

  private void showWebSocketTab(boolean show) {
    if (show && !tabs.getTabs().contains(webSocket)) {
      tabs.getTabs().add(webSocket);
    } else if (!show) {
      tabs.getTabs().remove(webSocket);
    }
  }

  private static Tab tab(String name, String id, Node content) {
    Tab t = new Tab(name, content);
    t.setId(id);
    return t;
  }

  /** The pane, to put under the flow table. */
  public Node node() {
    return root;
  }

  /** Selects the tab named {@code Request}, {@code Response}, {@code Connection}, {@code Timing} or {@code WebSocket}. */
  public void select(String tabName) {
    tabs.getTabs().stream().filter(t -> t.getText().equals(tabName)).findFirst()
        .ifPresent(t -> tabs.getSelectionModel().select(t));
  }
}
