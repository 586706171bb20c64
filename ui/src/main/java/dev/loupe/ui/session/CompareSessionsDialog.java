package dev.loupe.ui.session;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import javafx.beans.binding.Bindings;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Dialog;
import javafx.scene.control.Label;
import javafx.scene.control.RadioButton;
import javafx.scene.control.TextField;
import javafx.scene.control.ToggleGroup;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Priority;
import javafx.stage.Window;

/**
 * File › Compare Sessions…: what to compare (A: the current session or a file; B: a file, each a
 * {@code .loupe} session or a {@code .har}) and how to match flows (query left out, path only).
 *
 * <p>Node ids: {@code compare-a-current}, {@code compare-a-file}, {@code compare-a-path},
 * {@code compare-a-browse}, {@code compare-b-path}, {@code compare-b-browse},
 * {@code compare-ignore-query}, {@code compare-by-path}, {@code compare-ok}; the dialog pane
 * {@code compare-dialog}.
 */
final class CompareSessionsDialog {
  /** What the user asked for; {@code a} null means the current session. */
  record Choice(Path a, Path b, boolean ignoreQuery, boolean byPath) {}

  private CompareSessionsDialog() {}

  /** Shows the dialog (not blocking); {@code chosen} is told the choice when the user clicks Compare. */
  static Dialog<Choice> show(Window owner, boolean hasCurrent, SessionMenu.FileAsker asker, Consumer<Choice> chosen) {
    Dialog<Choice> d = new Dialog<>();
    d.initOwner(owner);
    d.setTitle("Compare sessions");
    d.setHeaderText("Compare two captures: flows are matched by method, URL and order,\n"
        + "and listed as changed, removed (only in A) or added (only in B).");
    ToggleGroup which = new ToggleGroup();
    RadioButton current = new RadioButton("The current session");
    current.setId("compare-a-current");
    current.setToggleGroup(which);
    current.setDisable(!hasCurrent);
    RadioButton file = new RadioButton("A file:");
    file.setId("compare-a-file");
    file.setToggleGroup(which);
    (hasCurrent ? current : file).setSelected(true);
    TextField aPath = new TextField();
    aPath.setId("compare-a-path");
    aPath.setPromptText(".loupe or .har");
    aPath.disableProperty().bind(current.selectedProperty());
    Button aBrowse = browse("compare-a-browse", aPath, asker, "Compare from (A)");
    aBrowse.disableProperty().bind(current.selectedProperty());
    aPath.textProperty().addListener((o, was, now) -> {
      if (!now.isBlank()) {
        file.setSelected(true);
      }
    });
    TextField bPath = new TextField();
    bPath.setId("compare-b-path");
    bPath.setPromptText(".loupe or .har");
    Button bBrowse = browse("compare-b-browse", bPath, asker, "Compare with (B)");
    CheckBox ignoreQuery = new CheckBox("Ignore the query string");
    ignoreQuery.setId("compare-ignore-query");
    CheckBox byPath = new CheckBox("Match by path only (any scheme, host and port)");
    byPath.setId("compare-by-path");

    GridPane grid = new GridPane();
    grid.setHgap(8);
    grid.setVgap(8);
    grid.setPadding(new Insets(12));
    grid.add(new Label("A:"), 0, 0);
    grid.add(current, 1, 0, 2, 1);
    grid.add(file, 1, 1);
    grid.add(aPath, 2, 1);
    grid.add(aBrowse, 3, 1);
    grid.add(new Label("B:"), 0, 2);
    grid.add(bPath, 2, 2);
    grid.add(bBrowse, 3, 2);
    grid.add(ignoreQuery, 1, 3, 3, 1);
    grid.add(byPath, 1, 4, 3, 1);
    GridPane.setHgrow(aPath, Priority.ALWAYS);
    GridPane.setHgrow(bPath, Priority.ALWAYS);
    aPath.setPrefColumnCount(36);
    d.getDialogPane().setContent(grid);
    d.getDialogPane().setId("compare-dialog");
    ButtonType ok = new ButtonType("Compare", ButtonBar.ButtonData.OK_DONE);
    d.getDialogPane().getButtonTypes().setAll(ok, ButtonType.CANCEL);
    Button okButton = (Button) d.getDialogPane().lookupButton(ok);
    okButton.setId("compare-ok");
    okButton.disableProperty().bind(Bindings.createBooleanBinding(
        () -> bPath.getText().isBlank() || (file.isSelected() && aPath.getText().isBlank()),
        bPath.textProperty(), aPath.textProperty(), file.selectedProperty()));
    d.setResultConverter(b -> b != ok ? null : new Choice(file.isSelected() ? Path.of(aPath.getText().trim()) : null,
        Path.of(bPath.getText().trim()), ignoreQuery.isSelected(), byPath.isSelected()));
    d.resultProperty().addListener((o, was, c) -> {
      if (c != null) {
        chosen.accept(c);
      }
    });
    d.show();
    return d;
  }

  private static Button browse(String id, TextField target, SessionMenu.FileAsker asker, String title) {
    Button b = new Button("Browse…");
    b.setId(id);
    b.setOnAction(e -> {
      Path p = asker.ask(title, null, false, List.of("*.loupe", "*.har"));
      if (p != null) {
        target.setText(p.toString());
      }
    });
    return b;
  }
}
