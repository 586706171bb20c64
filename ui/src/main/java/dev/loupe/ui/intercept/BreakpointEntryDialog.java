package dev.loupe.ui.intercept;

import dev.loupe.engine.api.intercept.Breakpoint;
import java.util.function.Function;
import javafx.geometry.Insets;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.stage.Modality;
import javafx.stage.Stage;
import javafx.stage.Window;

/**
 * Adds or edits a breakpoint of the list: filter (syntax error inline), pause requests, responses,
 * enabled. Ids: {@code bp-entry-filter}, {@code bp-entry-filter-error}, {@code bp-entry-request},
 * {@code bp-entry-response}, {@code bp-entry-enabled}, {@code bp-entry-error}, {@code
 * bp-entry-save}.
 */
final class BreakpointEntryDialog {
  private final Stage stage = new Stage();

  BreakpointEntryDialog(Window owner, BreakpointEntryViewModel vm, Function<Breakpoint, String> save) {
    TextField filter = new TextField();
    filter.setId("bp-entry-filter");
    filter.setPromptText("which flows, e.g. ~d api.example.com & ~m POST (blank: all)");
    filter.textProperty().bindBidirectional(vm.filterProperty());
    Label filterError = new Label();
    filterError.setId("bp-entry-filter-error");
    filterError.getStyleClass().add("filter-error");
    filterError.textProperty().bind(vm.filterErrorProperty());
    CheckBox request = new CheckBox("Pause requests (before they go to the server)");
    request.setId("bp-entry-request");
    request.selectedProperty().bindBidirectional(vm.requestProperty());
    CheckBox response = new CheckBox("Pause responses (before they go to the client)");
    response.setId("bp-entry-response");
    response.selectedProperty().bindBidirectional(vm.responseProperty());
    CheckBox enabled = new CheckBox("Enabled");
    enabled.setId("bp-entry-enabled");
    enabled.selectedProperty().bindBidirectional(vm.enabledProperty());
    Label error = new Label();
    error.setId("bp-entry-error");
    error.getStyleClass().add("filter-error");
    error.textProperty().bind(vm.errorProperty());

    Button ok = new Button("Save");
    ok.setId("bp-entry-save");
    ok.setDefaultButton(true);
    ok.disableProperty().bind(vm.validProperty().not());
    ok.setOnAction(e -> {
      Breakpoint b = vm.build();
      if (b == null) {
        return;
      }
      String problem = save.apply(b);
      if (problem == null) {
        stage.close();
      } else {
        error.textProperty().unbind();
        error.setText(problem);
      }
    });
    Button cancel = new Button("Cancel");
    cancel.setCancelButton(true);
    cancel.setOnAction(e -> stage.close());
    ButtonBar buttons = new ButtonBar();
    ButtonBar.setButtonData(ok, ButtonBar.ButtonData.OK_DONE);
    ButtonBar.setButtonData(cancel, ButtonBar.ButtonData.CANCEL_CLOSE);
    buttons.getButtons().addAll(ok, cancel);

    VBox root = new VBox(8, new Label("Filter"), filter, filterError, new HBox(16, request, response), enabled, error,
        buttons);
    root.setPadding(new Insets(12));
    Scene scene = new Scene(root, 620, 260);
    if (owner != null) {
      stage.initOwner(owner);
      stage.initModality(Modality.WINDOW_MODAL);
      if (owner.getScene() != null) {
        scene.getStylesheets().setAll(owner.getScene().getStylesheets());
      }
    }
    stage.setTitle(vm.editing() ? "Edit breakpoint" : "New breakpoint");
    stage.setScene(scene);
  }

  void show() {
    stage.show();
  }

  Stage stage() {
    return stage;
  }
}
