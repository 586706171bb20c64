package dev.loupe.ui.intercept;

import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TextArea;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.controlsfx.control.SegmentedButton;

/**
 * A body editor over a {@link BodyEditorModel}: Text / JSON / Hex buttons, Pretty-print (JSON), the
 * size, the model's error inline, and a monospaced text area. Ids: {@code id} on the text area,
 * {@code id-text}, {@code id-json}, {@code id-hex}, {@code id-pretty}, {@code id-error}.
 */
final class BodyEditor {
  private final BorderPane root = new BorderPane();

  BodyEditor(String id, BodyEditorModel model) {
    TextArea area = new TextArea();
    area.setId(id);
    area.getStyleClass().add("intercept-body");
    area.textProperty().bindBidirectional(model.textProperty());

    ToggleGroup group = new ToggleGroup();
    ToggleButton text = modeButton(id + "-text", BodyEditorModel.Mode.TEXT, group);
    ToggleButton json = modeButton(id + "-json", BodyEditorModel.Mode.JSON, group);
    ToggleButton hex = modeButton(id + "-hex", BodyEditorModel.Mode.HEX, group);
    SegmentedButton modes = new SegmentedButton(text, json, hex);
    modes.setToggleGroup(group);
    Runnable showMode = () -> {
      for (javafx.scene.control.Toggle t : group.getToggles()) {
        if (t.getUserData() == model.modeProperty().get() && group.getSelectedToggle() != t) {
          group.selectToggle(t);
        }
      }
    };
    showMode.run();
    model.modeProperty().addListener((o, was, now) -> showMode.run());
    group.selectedToggleProperty().addListener((o, was, now) -> {
      if (now == null) {
        showMode.run(); // one mode is always selected
      } else if (!model.mode((BodyEditorModel.Mode) now.getUserData())) {
        showMode.run(); // the model said no (bad hex, not UTF-8): the error says why
      }
    });
    Button pretty = new Button("Pretty-print");
    pretty.setId(id + "-pretty");
    pretty.setOnAction(e -> model.prettyPrint());
    Label size = new Label();
    size.getStyleClass().add("intercept-note");
    Runnable showSize = () -> size.setText(model.originalSize() == 0 ? "" : "was " + dev.loupe.ui.flows.FlowRow.humanBytes(model.originalSize()));
    showSize.run();
    model.modeProperty().addListener((o, was, now) -> showSize.run());
    Label error = new Label();
    error.setId(id + "-error");
    error.getStyleClass().add("filter-error");
    error.textProperty().bind(model.errorProperty());
    Region gap = new Region();
    HBox.setHgrow(gap, Priority.ALWAYS);
    HBox bar = new HBox(8, new Label("Body"), modes, pretty, gap, error, size);
    bar.setAlignment(Pos.CENTER_LEFT);
    bar.getStyleClass().add("intercept-bar");

    Label tooLarge = new Label();
    tooLarge.getStyleClass().add("intercept-note");
    tooLarge.setWrapText(true);
    Runnable showEditable = () -> {
      boolean on = model.editableProperty().get();
      tooLarge.setText(on ? "" : "The body (" + dev.loupe.ui.flows.FlowRow.humanBytes(model.originalSize())
          + ") is too large to edit here; it is sent unchanged.");
      root.setCenter(on ? area : new VBox(tooLarge));
      modes.setDisable(!on);
      pretty.setDisable(!on);
    };
    showEditable.run();
    model.editableProperty().addListener((o, was, now) -> showEditable.run());
    root.setTop(bar);
  }

  private static ToggleButton modeButton(String id, BodyEditorModel.Mode mode, ToggleGroup group) {
    ToggleButton b = new ToggleButton(mode.toString());
    b.setId(id);
    b.setUserData(mode);
    b.setToggleGroup(group);
    return b;
  }

  Node node() {
    return root;
  }
}
