package dev.loupe.ui.settings;

import java.util.Optional;
import javafx.beans.binding.Bindings;
import javafx.beans.property.Property;
import javafx.beans.value.ObservableValue;
import javafx.collections.FXCollections;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.Label;
import javafx.scene.control.TextArea;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Modality;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.controlsfx.control.PropertySheet;
import org.controlsfx.property.editor.AbstractPropertyEditor;
import org.controlsfx.property.editor.DefaultPropertyEditorFactory;
import org.controlsfx.property.editor.PropertyEditor;

/**
 * The Settings window: a ControlsFX property sheet over {@link SettingsViewModel}, the field
 * errors and warnings under it, Save (disabled while a field is invalid) and Cancel.
 */
public final class SettingsDialog {
  private final Stage stage = new Stage();
  private final SettingsViewModel vm;

  public SettingsDialog(Window owner, SettingsViewModel vm) {
    this.vm = vm;
    PropertySheet sheet = new PropertySheet(FXCollections.observableArrayList(
        new Item<>("Proxy", "Listen on", "HOST:PORT the proxy listens on (loopback keeps it private)", String.class, vm.listenProperty()),
        new Item<>("Proxy", "Ignore hosts", "One regex per line: matching hosts are tunnelled, not intercepted", String.class, vm.ignoreHostsProperty()),
        new Item<>("Proxy", "Upstream proxy", "http://host:port of a proxy Loupe must go through (empty: connect directly)", String.class, vm.upstreamProxyProperty()),
        new Item<>("Capture", "Body cap", "Bytes of each body kept in memory, e.g. 1MiB, 512k", String.class, vm.bodyCapProperty()),
        new Item<>("Breakpoints", "Pause timeout (s)", "Seconds a flow waits at a breakpoint before it goes on unchanged; 0 waits until you act", String.class, vm.pauseTimeoutProperty()),
        new Item<>("Security", "Verify TLS", "Check origin certificates (turning this off is dangerous)", Boolean.class, vm.verifyUpstreamTlsProperty()),
        new Item<>("Appearance", "Theme", "Light or dark window", Settings.Theme.class, vm.themeProperty())));
    sheet.setId("settings-sheet");
    sheet.setModeSwitcherVisible(false);
    sheet.setSearchBoxVisible(false);
    sheet.setMode(PropertySheet.Mode.NAME);
    DefaultPropertyEditorFactory defaults = new DefaultPropertyEditorFactory();
    sheet.setPropertyEditorFactory(item -> item.getName().equals("Ignore hosts") ? new LinesEditor(item) : defaults.call(item));

    Label errors = new Label();
    errors.setId("settings-errors");
    errors.getStyleClass().add("settings-error");
    errors.setWrapText(true);
    errors.textProperty().bind(Bindings.createStringBinding(
        () -> String.join("\n", java.util.stream.Stream.of(vm.listenErrorProperty().get(),
            vm.ignoreHostsErrorProperty().get(), vm.upstreamProxyErrorProperty().get(), vm.bodyCapErrorProperty().get(),
            vm.pauseTimeoutErrorProperty().get()).filter(s -> !s.isEmpty()).toList()),
        vm.listenErrorProperty(), vm.ignoreHostsErrorProperty(), vm.upstreamProxyErrorProperty(), vm.bodyCapErrorProperty(),
        vm.pauseTimeoutErrorProperty()));
    Label warning = new Label();
    warning.setId("settings-warning");
    warning.getStyleClass().add("settings-warning");
    warning.setWrapText(true);
    warning.textProperty().bind(vm.warningProperty());
    Label result = new Label();
    result.setId("settings-result");
    result.setWrapText(true);
    result.textProperty().bind(vm.resultProperty());

    Button save = new Button("Save");
    save.setId("settings-save");
    save.setDefaultButton(true);
    save.disableProperty().bind(errors.textProperty().isNotEmpty());
    save.setOnAction(e -> {
      if (vm.save()) {
        stage.close();
      }
    });
    Button cancel = new Button("Cancel");
    cancel.setCancelButton(true);
    cancel.setOnAction(e -> stage.close());
    ButtonBar buttons = new ButtonBar();
    ButtonBar.setButtonData(save, ButtonBar.ButtonData.OK_DONE);
    ButtonBar.setButtonData(cancel, ButtonBar.ButtonData.CANCEL_CLOSE);
    buttons.getButtons().addAll(save, cancel);

    Label note = new Label("Changing the listen address, ignore hosts, upstream proxy, body cap or TLS verification restarts the proxy"
        + " (open connections are closed). Command-line options given at start win over these settings.");
    note.setWrapText(true);
    note.getStyleClass().add("settings-note");
    VBox.setVgrow(sheet, Priority.ALWAYS);
    VBox root = new VBox(8, sheet, errors, warning, note, result, buttons);
    root.setStyle("-fx-padding: 12;");
    root.setPrefSize(560, 520);
    Scene scene = new Scene(root);
    if (owner != null && owner.getScene() != null) {
      scene.getStylesheets().setAll(owner.getScene().getStylesheets());
      stage.initOwner(owner);
      stage.initModality(Modality.WINDOW_MODAL);
    }
    stage.setTitle("Loupe — Settings");
    stage.setScene(scene);
  }

  public Stage stage() {
    return stage;
  }

  public void show() {
    stage.show();
  }

  public SettingsViewModel viewModel() {
    return vm;
  }

  /** A property sheet row bound to a view-model property. */
  private static final class Item<T> implements PropertySheet.Item {
    private final String category;
    private final String name;
    private final String description;
    private final Class<T> type;
    private final Property<T> property;

    Item(String category, String name, String description, Class<T> type, Property<T> property) {
      this.category = category;
      this.name = name;
      this.description = description;
      this.type = type;
      this.property = property;
    }

    @Override public Class<?> getType() { return type; }
    @Override public String getCategory() { return category; }
    @Override public String getName() { return name; }
    @Override public String getDescription() { return description; }
    @Override public Object getValue() { return property.getValue(); }
    @Override public void setValue(Object value) { property.setValue(type.cast(value)); }
    @Override public Optional<ObservableValue<? extends Object>> getObservableValue() { return Optional.of(property); }
  }

  /** A few lines of text (one regex per line). */
  private static final class LinesEditor extends AbstractPropertyEditor<String, TextArea> implements PropertyEditor<String> {
    LinesEditor(PropertySheet.Item item) {
      super(item, area());
    }

    private static TextArea area() {
      TextArea a = new TextArea();
      a.setId("settings-ignore-hosts");
      a.setPrefRowCount(3);
      return a;
    }

    @Override
    protected ObservableValue<String> getObservableValue() {
      return getEditor().textProperty();
    }

    @Override
    public void setValue(String value) {
      getEditor().setText(value);
    }
  }
}
