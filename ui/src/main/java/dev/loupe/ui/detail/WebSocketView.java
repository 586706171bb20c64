package dev.loupe.ui.detail;

import dev.loupe.ui.flows.FlowRow;
import java.util.concurrent.Executor;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;

/**
 * The WebSocket tab: the message table (direction arrow, time, type, size, text preview) over the
 * selected message's viewer (text, JSON or hex, with the usual chooser). Ids {@code ws-messages},
 * {@code ws-body-...}.
 */
final class WebSocketView {
  private final SplitPane root;

  WebSocketView(DetailViewModel vm, Executor imageDecoder) {
    TableView<WebSocketRow> table = new TableView<>(vm.webSocketMessages());
    table.setId("ws-messages");
    table.getColumns().add(Tables.column("#", 50, WebSocketRow::index));
    table.getColumns().add(Tables.column("", 30, WebSocketRow::arrow));
    table.getColumns().add(Tables.column("Time", 110, r -> DetailViewModel.time(r.message().time())));
    table.getColumns().add(Tables.column("Type", 70, WebSocketRow::opcode));
    table.getColumns().add(Tables.column("Size", 80, r -> FlowRow.humanBytes(r.message().length())));
    table.getColumns().add(Tables.column("Data", 520, WebSocketRow::preview));
    table.setRowFactory(t -> new TableRow<>() {
      @Override
      protected void updateItem(WebSocketRow row, boolean empty) {
        super.updateItem(row, empty);
        getStyleClass().removeAll("ws-sent", "ws-received");
        if (!empty && row != null) {
          getStyleClass().add(row.arrow().equals("↑") ? "ws-sent" : "ws-received");
        }
      }
    });
    Tables.copyOnShortcutC(table, r -> r.arrow() + " " + DetailViewModel.time(r.message().time()) + " " + r.opcode()
        + " " + r.message().length() + " " + (r.message().opcode() == dev.loupe.engine.flow.WebSocketMessage.TEXT
            ? r.message().text() : r.preview()));
    table.getSelectionModel().selectedItemProperty().addListener((o, was, now) -> {
      if (now != vm.selectedMessageProperty().get()) {
        vm.selectMessage(now);
      }
    });
    BodyView body = new BodyView(vm.messageBody(), "ws-body", imageDecoder);
    root = new SplitPane(table, body.node());
    root.setOrientation(Orientation.VERTICAL);
    root.setDividerPositions(0.5);
  }

  Node node() {
    return root;
  }
}
