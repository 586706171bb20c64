package dev.loupe.ui.intercept;

import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.PausedFlow;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.flow.Flow;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javafx.beans.binding.Bindings;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;
import javafx.stage.Window;

/**
 * One window for every paused flow: the list on the left (oldest first), the selected flow's
 * {@link BreakpointEditor} on the right. Editors are made when a flow is first selected and kept
 * while it stays paused, so edits survive switching between flows; a flow released anywhere (this
 * editor, a timeout, the control API, the client leaving) leaves the list, the next one is
 * selected, and the window hides when none is left. Many pauses cost one list cell each.
 *
 * <p>Ctrl+Enter resumes the selected flow with its edits.
 *
 * <p>Ids: {@code paused-list}, {@code paused-count}, {@code paused-resume-all}, {@code
 * paused-editor} (the right side); the editor's own ids are in {@link BreakpointEditor}.
 */
public final class PausedFlowsWindow {
  private final Stage stage = new Stage();
  private final PausedFlowsViewModel paused;
  private final ListView<PausedFlow> list = new ListView<>();
  private final StackPane editorArea = new StackPane();
  private final Map<PausedFlow, BreakpointEditor> editors = new HashMap<>();
  private final Label none = new Label("Nothing is paused.");

  public PausedFlowsWindow(Window owner, PausedFlowsViewModel paused, InterceptService service) {
    this.paused = paused;
    list.setId("paused-list");
    list.setItems(paused.pausedFlows());
    list.setCellFactory(v -> new ListCell<>() {
      @Override
      protected void updateItem(PausedFlow p, boolean empty) {
        super.updateItem(p, empty);
        getStyleClass().removeAll("paused-request", "paused-response");
        if (empty || p == null) {
          setText(null);
          setTooltip(null);
          return;
        }
        boolean req = p.phase() == Flow.Paused.REQUEST;
        getStyleClass().add(req ? "paused-request" : "paused-response");
        setText(describe(p));
        setTooltip(new Tooltip(p.request().method() + " " + p.request().url()));
      }
    });
    list.getSelectionModel().selectedItemProperty().addListener((o, was, now) -> show(now));
    paused.pausedFlows().addListener((ListChangeListener<PausedFlow>) c -> {
      int selected = list.getSelectionModel().getSelectedIndex();
      while (c.next()) {
        for (PausedFlow gone : c.getRemoved()) {
          BreakpointEditor e = editors.remove(gone);
          if (e != null) {
            e.viewModel().released();
          }
        }
      }
      List<PausedFlow> now = paused.pausedFlows();
      if (now.isEmpty()) {
        show(null);
        stage.hide();
      } else if (list.getSelectionModel().getSelectedItem() == null) {
        list.getSelectionModel().clearAndSelect(Math.max(0, Math.min(selected, now.size() - 1)));
      }
    });

    Label count = new Label();
    count.setId("paused-count");
    count.getStyleClass().add("intercept-title");
    count.textProperty().bind(Bindings.createStringBinding(() -> {
      java.time.Duration timeout = service.pauseTimeout();
      return paused.countProperty().get() + " paused, oldest first"
          + (timeout.isZero() ? "" : " — each goes on unchanged after " + timeout.toSeconds() + " s (see Settings)");
    }, paused.countProperty()));
    Button resumeAll = new Button("Resume all");
    resumeAll.setId("paused-resume-all");
    resumeAll.setTooltip(new Tooltip("Let every paused flow go on unchanged"));
    resumeAll.setOnAction(e -> service.releaseAll());
    resumeAll.disableProperty().bind(paused.countProperty().isEqualTo(0));
    Region gap = new Region();
    HBox.setHgrow(gap, Priority.ALWAYS);
    HBox top = new HBox(8, count, gap, resumeAll);
    top.setAlignment(Pos.CENTER_LEFT);
    top.setPadding(new Insets(6, 8, 6, 8));

    none.getStyleClass().add("detail-hint");
    editorArea.setId("paused-editor");
    editorArea.getChildren().setAll(none);
    SplitPane split = new SplitPane(list, editorArea);
    split.setDividerPositions(0.28);
    SplitPane.setResizableWithParent(list, false);
    BorderPane root = new BorderPane(split);
    root.setTop(top);
    Scene scene = new Scene(root, 1100, 720);
    if (owner != null) {
      stage.initOwner(owner);
      if (owner.getScene() != null) {
        scene.getStylesheets().setAll(owner.getScene().getStylesheets());
      }
    }
    scene.getAccelerators().put(new javafx.scene.input.KeyCodeCombination(javafx.scene.input.KeyCode.ENTER,
        javafx.scene.input.KeyCombination.SHORTCUT_DOWN), () -> {
          BreakpointEditor e = selectedEditor();
          if (e != null) {
            e.viewModel().resume();
          }
        });
    stage.setTitle("Loupe — Paused flows");
    stage.setScene(scene);
  }

  /** Two lines: "#12  POST  at request" and "api.example.com/users". */
  static String describe(PausedFlow p) {
    RequestDraft r = p.request();
    return "#" + p.flow().id() + "  " + r.method() + "  at " + (p.phase() == Flow.Paused.REQUEST ? "request" : "response")
        + "\n" + r.url().replaceFirst("^https?://", "");
  }

  private void show(PausedFlow p) {
    if (p == null) {
      editorArea.getChildren().setAll(none);
      return;
    }
    BreakpointEditor editor = editors.computeIfAbsent(p, x -> new BreakpointEditor(new BreakpointEditorViewModel(x)));
    editorArea.getChildren().setAll(editor.node());
  }

  /** Shows the window, selecting {@code flowId}'s pause when it is in the list (else keeping the selection). */
  public void show(long flowId) {
    for (PausedFlow p : paused.pausedFlows()) {
      if (p.flow().id() == flowId) {
        list.getSelectionModel().select(p);
      }
    }
    show();
  }

  /** Shows the window (selecting the oldest pause if none is selected). */
  public void show() {
    if (list.getSelectionModel().getSelectedItem() == null && !paused.pausedFlows().isEmpty()) {
      list.getSelectionModel().clearAndSelect(0);
    }
    stage.show();
    stage.toFront();
  }

  public Stage stage() {
    return stage;
  }

  /** The editor of the selected flow, or null (tests). */
  BreakpointEditor selectedEditor() {
    PausedFlow p = list.getSelectionModel().getSelectedItem();
    return p == null ? null : editors.get(p);
  }
}
