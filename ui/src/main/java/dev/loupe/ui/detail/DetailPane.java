package dev.loupe.ui.detail;

import dev.loupe.ui.diff.DiffView;
import dev.loupe.ui.diff.DiffWindow;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import javafx.scene.Node;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;

/**
 * The flow detail pane, bound to a {@link DetailViewModel}: a title line and tabs Request,
 * Response, Connection, Timing, and WebSocket (only for WebSocket flows). Shows a hint while no
 * flow is selected. Styles come from {@code loupe.css}, which the scene must carry
 * ({@code MainWindow.scene()} adds it).
 *
 * <p>Ids for tests and styling: {@code detail-pane}, {@code detail-title}, {@code detail-tabs},
 * tabs {@code tab-request}, {@code tab-response}, {@code tab-connection}, {@code tab-timing},
 * {@code tab-websocket}, {@code tab-modified}; inside them see {@link MessageView}, {@link BodyView}.
 *
 * <p>A flow a rule or breakpoint changed gets a "Modified by ..." banner ({@code detail-modified})
 * and an "Original vs modified" tab: a {@link DiffView} ({@code detail-diff-...}) of the request as
 * the client sent it vs as it went upstream, and the response as the origin sent it vs as the client
 * got it. A replayed flow shows "Replay of #N" ({@code detail-replay-of}).
 */
public final class DetailPane {
  private final StackPane root = new StackPane();
  private final TabPane tabs = new TabPane();
  private final Tab webSocket;
  private final Tab modified;

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
    modified = tab("Original vs modified", "tab-modified", new DiffView(vm.originalVsModified(), "detail-diff").node());
    tabs.setId("detail-tabs");
    tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
    tabs.getTabs().addAll(request, response, connection, timing);
    vm.webSocketProperty().addListener((o, was, now) -> showWebSocketTab(now));
    vm.modifiedByProperty().addListener((o, was, now) -> showModifiedTab(!now.isEmpty()));

    root.getStylesheets().add(DetailPane.class.getResource("/dev/loupe/ui/diff.css").toExternalForm());
    Label modifiedBy = new Label();
    modifiedBy.setId("detail-modified");
    modifiedBy.textProperty().bind(vm.modifiedByProperty());
    modifiedBy.setWrapText(true);
    Hyperlink compare = new Hyperlink("Original vs modified");
    compare.setId("detail-modified-compare");
    compare.setOnAction(e -> tabs.getSelectionModel().select(modified));
    Hyperlink inWindow = new Hyperlink("in a window");
    inWindow.setId("detail-modified-window");
    inWindow.setOnAction(e -> {
      if (vm.flowProperty().get() != null) {
        DiffWindow.originalVsModified(root.getScene() == null ? null : root.getScene().getWindow(),
            vm.flowProperty().get());
      }
    });
    HBox.setHgrow(modifiedBy, Priority.ALWAYS);
    HBox modifiedBanner = new HBox(8, modifiedBy, compare, inWindow);
    modifiedBanner.getStyleClass().add("modified-banner");
    modifiedBanner.visibleProperty().bind(vm.modifiedByProperty().isNotEmpty());
    modifiedBanner.managedProperty().bind(modifiedBanner.visibleProperty());
    Label replayOf = new Label();
    replayOf.setId("detail-replay-of");
    replayOf.getStyleClass().add("replay-banner");
    replayOf.setMaxWidth(Double.MAX_VALUE);
    replayOf.textProperty().bind(vm.replayOfProperty());
    replayOf.visibleProperty().bind(vm.replayOfProperty().isNotEmpty());
    replayOf.managedProperty().bind(replayOf.visibleProperty());

    Label notes = new Label();
    notes.setId("detail-notes");
    notes.getStyleClass().add("notes-banner");
    notes.setWrapText(true);
    notes.setMaxWidth(Double.MAX_VALUE);
    notes.setStyle("-fx-text-fill: #b35c00; -fx-padding: 2 8 2 8;");
    notes.textProperty().bind(vm.notesProperty());
    notes.visibleProperty().bind(vm.notesProperty().isNotEmpty());
    notes.managedProperty().bind(notes.visibleProperty());

    BorderPane content = new BorderPane(tabs);
    content.setTop(new VBox(title, modifiedBanner, notes, replayOf));
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

  private void showModifiedTab(boolean show) {
    if (show && !tabs.getTabs().contains(modified)) {
      tabs.getTabs().add(modified);
    } else if (!show) {
      tabs.getTabs().remove(modified);
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

  /**
   * Selects the tab named {@code Request}, {@code Response}, {@code Connection}, {@code Timing},
   * {@code WebSocket} or {@code Original vs modified}.
   */
  public void select(String tabName) {
    tabs.getTabs().stream().filter(t -> t.getText().equals(tabName)).findFirst()
        .ifPresent(t -> tabs.getSelectionModel().select(t));
  }
}
