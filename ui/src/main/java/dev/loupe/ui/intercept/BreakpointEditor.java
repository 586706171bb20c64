package dev.loupe.ui.intercept;

import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The editor of one paused flow, bound to a {@link BreakpointEditorViewModel}.
 *
 * <p>Request phase: tabs "Request" (method, URL, headers, body) and "Answer" (status, reason,
 * headers, body of a response to send without contacting the origin). Response phase: the request
 * line, then status, reason, headers and body. Under them the action's error, inline, and the
 * buttons Resume (with the edits), Resume unchanged, Abort and (request phase) Answer now.
 *
 * <p>Ids: {@code bp-title}, {@code bp-tabs}, {@code bp-method}, {@code bp-url}, {@code bp-status},
 * {@code bp-reason}, {@code bp-headers}, {@code bp-body} (see {@link HeaderTable}, {@link
 * BodyEditor} for theirs), {@code bp-answer-status}, {@code bp-answer-reason}, {@code
 * bp-answer-headers}, {@code bp-answer-body}, {@code bp-error}, {@code bp-resume}, {@code
 * bp-resume-unchanged}, {@code bp-abort}, {@code bp-answer}.
 */
final class BreakpointEditor {
  private final BorderPane root = new BorderPane();
  private final BreakpointEditorViewModel vm;

  BreakpointEditor(BreakpointEditorViewModel vm) {
    this.vm = vm;
    root.getStyleClass().add("breakpoint-editor");
    Label title = new Label(vm.title());
    title.setId("bp-title");
    title.getStyleClass().add("intercept-title");
    title.setMaxWidth(Double.MAX_VALUE);
    title.setTooltip(new Tooltip(vm.title()));

    Node center;
    if (vm.requestPhase()) {
      GridPane line = grid();
      line.addRow(0, new Label("Method"), field("bp-method", vm.methodProperty(), 90),
          new Label("URL"), field("bp-url", vm.urlProperty(), -1));
      Tab request = new Tab("Request", message(line, new HeaderTable("bp-headers", vm.headers()).node(),
          new BodyEditor("bp-body", vm.body()).node()));
      GridPane status = grid();
      TextField answerReason = field("bp-answer-reason", vm.answerReasonProperty(), -1);
      answerReason.setPromptText("standard reason for the status");
      status.addRow(0, new Label("Status"), field("bp-answer-status", vm.answerStatusProperty(), 90),
          new Label("Reason"), answerReason);
      Label hint = new Label("Answer now sends this response to the client; the server is not contacted.");
      hint.getStyleClass().add("intercept-note");
      Tab answer = new Tab("Answer", message(new VBox(4, hint, status),
          new HeaderTable("bp-answer-headers", vm.answerHeaders()).node(),
          new BodyEditor("bp-answer-body", vm.answerBody()).node()));
      TabPane tabs = new TabPane(request, answer);
      tabs.setId("bp-tabs");
      tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
      center = tabs;
    } else {
      Label sent = new Label("Request: " + vm.methodProperty().get() + " " + vm.urlProperty().get());
      sent.getStyleClass().add("intercept-note");
      GridPane line = grid();
      line.addRow(0, new Label("Status"), field("bp-status", vm.statusProperty(), 90),
          new Label("Reason"), field("bp-reason", vm.reasonProperty(), -1));
      center = message(new VBox(4, sent, line), new HeaderTable("bp-headers", vm.headers()).node(),
          new BodyEditor("bp-body", vm.body()).node());
    }

    Label error = new Label();
    error.setId("bp-error");
    error.getStyleClass().add("filter-error");
    error.setWrapText(true);
    error.textProperty().bind(vm.errorProperty());

    Button resume = new Button("Resume");
    resume.setId("bp-resume");
    // not the default button: Enter in the URL or a header field must not let the flow go
    resume.getStyleClass().add("intercept-primary");
    resume.setTooltip(new Tooltip("Let the flow go on with your edits (Content-Length and encodings are fixed up)."
        + " Ctrl+Enter"));
    resume.setOnAction(e -> vm.resume());
    Button unchanged = new Button("Resume unchanged");
    unchanged.setId("bp-resume-unchanged");
    unchanged.setTooltip(new Tooltip("Let the flow go on as it was paused, ignoring edits"));
    unchanged.setOnAction(e -> vm.resumeUnchanged());
    Button abort = new Button("Abort");
    abort.setId("bp-abort");
    abort.setTooltip(new Tooltip("The client gets its stream reset or its connection closed"));
    abort.setOnAction(e -> vm.abort());
    HBox buttons = new HBox(8, resume, unchanged, abort);
    if (vm.requestPhase()) {
      Button answerNow = new Button("Answer now");
      answerNow.setId("bp-answer");
      answerNow.setTooltip(new Tooltip("Send the response from the Answer tab to the client without contacting the server"));
      answerNow.setOnAction(e -> vm.answer());
      buttons.getChildren().add(answerNow);
    }
    Region gap = new Region();
    HBox.setHgrow(gap, Priority.ALWAYS);
    buttons.getChildren().add(1, gap);
    buttons.setAlignment(Pos.CENTER_LEFT);
    for (Node b : buttons.getChildren()) {
      if (b instanceof Button) {
        b.disableProperty().bind(vm.releasedProperty());
      }
    }
    center.disableProperty().bind(vm.releasedProperty());

    root.setTop(title);
    root.setCenter(center);
    VBox bottom = new VBox(6, error, buttons);
    bottom.setPadding(new Insets(6, 0, 0, 0));
    root.setBottom(bottom);
    root.setPadding(new Insets(8));
  }

  Node node() {
    return root;
  }

  BreakpointEditorViewModel viewModel() {
    return vm;
  }

  private static GridPane grid() {
    GridPane g = new GridPane();
    g.setHgap(6);
    g.setVgap(4);
    g.setAlignment(Pos.CENTER_LEFT);
    ColumnConstraints label = new ColumnConstraints();
    ColumnConstraints small = new ColumnConstraints();
    ColumnConstraints label2 = new ColumnConstraints();
    ColumnConstraints wide = new ColumnConstraints();
    wide.setHgrow(Priority.ALWAYS);
    g.getColumnConstraints().addAll(label, small, label2, wide);
    return g;
  }

  private static TextField field(String id, javafx.beans.property.StringProperty p, double width) {
    TextField f = new TextField();
    f.setId(id);
    f.textProperty().bindBidirectional(p);
    if (width > 0) {
      f.setPrefColumnCount(6);
      f.setPrefWidth(width);
    }
    return f;
  }

  /** A start line over a split of headers (top) and body (bottom). */
  private static Node message(Node line, Node headers, Node body) {
    SplitPane split = new SplitPane(headers, body);
    split.setOrientation(Orientation.VERTICAL);
    split.setDividerPositions(0.4);
    VBox.setVgrow(split, Priority.ALWAYS);
    VBox box = new VBox(6, line, split);
    box.setPadding(new Insets(6, 0, 0, 0));
    return box;
  }
}
