package dev.loupe.ui.detail;

import java.util.List;
import java.util.concurrent.Executor;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;

/**
 * One side of the flow: a summary line and Headers / Body / Raw tabs. Ids start with
 * {@code request} or {@code response} ({@code response-headers}, {@code response-body-...},
 * {@code response-raw}, {@code response-tabs}).
 */
final class MessageView {
  private final BorderPane root = new BorderPane();

  MessageView(MessageViewModel vm, Executor imageDecoder) {
    String id = vm.side() == MessageViewModel.Side.REQUEST ? "request" : "response";
    Label summary = new Label();
    summary.setId(id + "-summary");
    summary.getStyleClass().add("message-summary");
    summary.textProperty().bind(vm.summaryProperty());

    var headers = Tables.nameValue(id + "-headers", vm.headers(), HeaderRow::name, HeaderRow::value,
        HeaderRow::section);
    BodyView body = new BodyView(vm.body(), id + "-body", imageDecoder);
    CodeView raw = new CodeView(id + "-raw");
    // The model keeps HTTP's CRLFs (for copying); the code view shows lines.
    vm.rawProperty().addListener((o, was, now) -> raw.show(lines(now), List.of()));
    raw.show(lines(vm.rawProperty().get()), List.of());

    Tab headersTab = new Tab("Headers", headers);
    Tab bodyTab = new Tab("Body", body.node());
    Tab rawTab = new Tab("Raw", raw.node());
    TabPane tabs = new TabPane(headersTab, bodyTab, rawTab);
    tabs.setId(id + "-tabs");
    tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
    tabs.getStyleClass().add("message-tabs");

    Label absent = new Label(id.equals("request") ? "No request yet" : "No response yet");
    absent.getStyleClass().add("detail-hint");
    root.setTop(summary);
    root.setCenter(vm.presentProperty().get() ? tabs : absent);
    vm.presentProperty().addListener((o, was, now) -> root.setCenter(now ? tabs : absent));
  }

  Node node() {
    return root;
  }

  /** CRLF as LF, without the final line break (a code view would show it as an empty last line). */
  static String lines(String raw) {
    String s = raw.replace("\r\n", "\n");
    return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
  }
}
