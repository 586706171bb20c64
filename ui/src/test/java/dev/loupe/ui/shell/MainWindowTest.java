package dev.loupe.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import dev.loupe.ui.flows.FlowListViewModel;
import dev.loupe.ui.flows.FlowRow;
import dev.loupe.ui.settings.Settings;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.Scene;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The real window (headless Monocle) on a real proxy: traffic appears, the filter narrows it. */
@ExtendWith(ApplicationExtension.class)
class MainWindowTest {
  private ProxyFixture proxy;
  private TestOrigin origin;
  private FlowListViewModel vm;
  private MainWindow window;
  private final RecordingSystemProxy systemProxy = new RecordingSystemProxy();
  @org.junit.jupiter.api.io.TempDir
  java.nio.file.Path confdir;

  @Start
  void start(Stage stage) throws Exception {
    proxy = ProxyFixture.start();
    origin = TestOrigin.http();
    vm = new FlowListViewModel(proxy.store(), Platform::runLater);
    window = new MainWindow(vm, new DesktopContext(proxy.store(), "127.0.0.1:" + proxy.port(),
        confdir, Settings.DEFAULTS, s -> "127.0.0.1:" + proxy.port(), systemProxy, new dev.loupe.ui.trust.FakeTrustPort(),
        proxy.engine().intercept(), proxy.engine()::replay));
    stage.setScene(window.scene());
    stage.show();
  }

  @AfterEach
  void stop() {
    window.close();
    vm.close();
    proxy.close();
    origin.close();
  }

  @Test
  void trafficThroughTheProxyAppearsAndTheFilterNarrowsIt(FxRobot robot) throws Exception {
    for (String path : new String[] {"/status/200?first", "/status/404?second", "/bytes/2048?third"}) {
      HttpResponse<String> r = proxy.client().send(HttpRequest.newBuilder(URI.create(origin.url() + path)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isIn(200, 404);
    }
    @SuppressWarnings("unchecked")
    TableView<FlowRow> table = robot.lookup("#flow-table").queryAs(TableView.class);
    // the status comes with the response head, the size once the body has been seen: wait for both
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> table.getItems().size() == 3 && table.getItems().stream().allMatch(r -> r.status() != 0)
            && table.getItems().get(2).size() == 2048);
    assertThat(table.getItems()).extracting(FlowRow::path)
        .containsExactly("/status/200?first", "/status/404?second", "/bytes/2048?third");
    assertThat(table.getItems().get(2).size()).isEqualTo(2048);
    assertThat(robot.lookup("#status-bar").queryAs(org.controlsfx.control.StatusBar.class).getText()).endsWith("3 flows");

    // sorting by a column (descending size), then back to arrival order
    javafx.scene.control.TableColumn<FlowRow, ?> size = table.getColumns().stream()
        .filter(c -> "col-size".equals(c.getId())).findFirst().orElseThrow();
    robot.interact(() -> {
      size.setSortType(javafx.scene.control.TableColumn.SortType.DESCENDING);
      table.getSortOrder().setAll(java.util.List.of(size));
    });
    assertThat(table.getItems()).extracting(FlowRow::path).first().isEqualTo("/bytes/2048?third");
    robot.interact(() -> table.getSortOrder().clear());
    assertThat(table.getItems()).extracting(FlowRow::path)
        .containsExactly("/status/200?first", "/status/404?second", "/bytes/2048?third");

    java.nio.file.Path png = Screenshots.write(table.getScene(), "main-window-light.png");
    assertThat(javax.imageio.ImageIO.read(png.toFile()).getWidth()).isEqualTo(1200);

    robot.clickOn("#filter").write("status>=400");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.getItems().size() == 1); // matched on a worker
    assertThat(table.getItems()).extracting(FlowRow::path).containsExactly("/status/404?second");

    TextField filter = robot.lookup("#filter").queryAs(TextField.class);
    robot.interact(() -> filter.setText("(~d example"));
    assertThat(robot.lookup("#filter-error").queryAs(Label.class).getText()).contains("')'");
    assertThat(table.getItems()).as("the previous filter stays").hasSize(1);

    robot.interact(() -> filter.setText(""));
    robot.clickOn("#clear");
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(table.getItems()).isEmpty();
    assertThat(proxy.store().size()).isZero();

    // Capture off: traffic still flows, nothing is recorded; on again: recorded.
    robot.clickOn("#capture");
    assertThat(proxy.store().capturing()).isFalse();
    HttpResponse<String> unrecorded = proxy.client().send(
        HttpRequest.newBuilder(URI.create(origin.url() + "/status/200?paused")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(unrecorded.statusCode()).isEqualTo(200);
    robot.clickOn("#capture");
    proxy.client().send(HttpRequest.newBuilder(URI.create(origin.url() + "/status/200?resumed")).build(),
        HttpResponse.BodyHandlers.ofString());
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.getItems().size() == 1 && table.getItems().get(0).status() != 0);
    assertThat(table.getItems()).extracting(FlowRow::path).containsExactly("/status/200?resumed");
  }

  @Test
  void ctrlEExportsAValidHarAndCopyAsCurlFillsTheClipboard(FxRobot robot) throws Exception {
    for (int i = 0; i < 3; i++) {
      proxy.client().send(HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/100?n=" + i)).build(),
          HttpResponse.BodyHandlers.ofString());
    }
    @SuppressWarnings("unchecked")
    TableView<FlowRow> table = robot.lookup("#flow-table").queryAs(TableView.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> table.getItems().size() == 3 && table.getItems().stream().allMatch(r -> r.status() != 0));

    java.nio.file.Path har = confdir.resolve("session.har");
    java.util.List<String> asked = new java.util.ArrayList<>();
    window.saveChooser((title, suggested) -> {
      asked.add(title + " | " + suggested);
      return har;
    });
    robot.clickOn("#filter");
    robot.press(javafx.scene.input.KeyCode.CONTROL, javafx.scene.input.KeyCode.E).release(javafx.scene.input.KeyCode.E,
        javafx.scene.input.KeyCode.CONTROL);
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS,
        () -> window.exportViewModel().outcomeProperty().get() == dev.loupe.ui.export.HarExportViewModel.Outcome.DONE);
    assertThat(asked).singleElement().asString().startsWith("Export 3 flows as HAR | loupe-all-").endsWith(".har");
    com.fasterxml.jackson.databind.JsonNode entries = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(har.toFile()).path("log").path("entries");
    assertThat(entries.size()).isEqualTo(3);
    assertThat(entries.get(1).path("request").path("url").asText()).isEqualTo(origin.url() + "/bytes/100?n=1");
    assertThat(robot.lookup("#export-message").queryAs(Label.class).getText()).startsWith("Exported 3 flows");

    robot.interact(() -> table.getSelectionModel().clearAndSelect(2));
    robot.clickOn("#filter");
    robot.press(javafx.scene.input.KeyCode.CONTROL, javafx.scene.input.KeyCode.SHIFT, javafx.scene.input.KeyCode.C)
        .release(javafx.scene.input.KeyCode.C, javafx.scene.input.KeyCode.SHIFT, javafx.scene.input.KeyCode.CONTROL);
    java.util.concurrent.atomic.AtomicReference<String> clip = new java.util.concurrent.atomic.AtomicReference<>();
    robot.interact(() -> clip.set(javafx.scene.input.Clipboard.getSystemClipboard().getString()));
    assertThat(clip.get()).startsWith("curl '" + origin.url() + "/bytes/100?n=2'");
    robot.interact(() -> table.getSelectionModel().selectAll());
    // the table's context menu (its popup does not open on headless Monocle: fire the item)
    robot.interact(() -> table.getContextMenu().getItems().stream().filter(i -> "copy-url".equals(i.getId()))
        .findFirst().orElseThrow().fire());
    robot.interact(() -> clip.set(javafx.scene.input.Clipboard.getSystemClipboard().getString()));
    assertThat(clip.get().split("\n")).containsExactly(origin.url() + "/bytes/100?n=0", origin.url() + "/bytes/100?n=1",
        origin.url() + "/bytes/100?n=2");
  }

  @Test
  void settingsRejectBadValuesAndSavingDarkThemeRestylesTheWindow(FxRobot robot) throws Exception {
    robot.clickOn("#settings");
    TextField listen = robot.lookup("#settings-sheet").lookup(".text-field").match(
        n -> ((TextField) n).getText().equals("127.0.0.1:8080")).queryAs(TextField.class);
    robot.interact(() -> listen.setText("127.0.0.1:70000"));
    assertThat(robot.lookup("#settings-errors").queryAs(Label.class).getText()).contains("port out of range");
    assertThat(robot.lookup("#settings-save").queryButton().isDisabled()).isTrue();
    robot.interact(() -> listen.setText("127.0.0.1:" + proxy.port()));
    assertThat(robot.lookup("#settings-save").queryButton().isDisabled()).isFalse();
    javafx.scene.control.CheckBox verify = robot.lookup("#settings-sheet").lookup(".check-box")
        .queryAs(javafx.scene.control.CheckBox.class);
    robot.interact(() -> verify.setSelected(false));
    assertThat(robot.lookup("#settings-warning").queryAs(Label.class).getText()).contains("TLS verification is OFF");
    robot.interact(() -> verify.setSelected(true));
    @SuppressWarnings("unchecked")
    javafx.scene.control.ComboBox<Settings.Theme> theme = robot.lookup("#settings-sheet").lookup(".combo-box")
        .queryAs(javafx.scene.control.ComboBox.class);
    robot.interact(() -> theme.setValue(Settings.Theme.DARK));
    Screenshots.write(robot.lookup("#settings-sheet").query().getScene(), "settings-dialog.png");
    robot.clickOn("#settings-save");
    WaitForAsyncUtils.waitForFxEvents();
    Scene main = robot.lookup("#flow-table").query().getScene();
    assertThat(main.getStylesheets()).anyMatch(u -> u.endsWith("loupe-dark.css"));
    assertThat(new dev.loupe.ui.settings.SettingsFile(confdir).load().theme()).isEqualTo(Settings.Theme.DARK);

    for (String path : new String[] {"/status/200?a", "/status/500?b", "/bytes/4096?c"}) {
      proxy.client().send(HttpRequest.newBuilder(URI.create(origin.url() + path)).build(), HttpResponse.BodyHandlers.ofString());
    }
    @SuppressWarnings("unchecked")
    TableView<FlowRow> table = robot.lookup("#flow-table").queryAs(TableView.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> table.getItems().size() == 3 && table.getItems().stream().allMatch(r -> r.status() != 0));
    robot.interact(() -> table.getSelectionModel().clearAndSelect(1));
    Screenshots.write(main, "main-window-dark.png");
  }

  @Test
  void systemProxyToggleSwitchesOffTheUiThreadAndTrustOpensTheDialog(FxRobot robot) throws Exception {
    robot.clickOn("#system-proxy");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> !robot.lookup("#system-proxy").queryAs(javafx.scene.control.ToggleButton.class).isDisabled()
        && robot.lookup("#status-notice").queryAs(Label.class).getText().startsWith("System proxy (GNOME) now points"));
    assertThat(systemProxy.calls).containsExactly("enable on loupe-system-proxy");
    assertThat(((javafx.scene.control.ToggleButton) robot.lookup("#system-proxy").query()).isSelected()).isTrue();
    robot.clickOn("#system-proxy");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> robot.lookup("#status-notice").queryAs(Label.class).getText().equals("System proxy settings restored"));
    assertThat(((javafx.scene.control.ToggleButton) robot.lookup("#system-proxy").query()).isSelected()).isFalse();

    robot.clickOn("#trust-ca");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> robot.lookup("#trust-fingerprint").tryQuery().isPresent());
    assertThat(robot.lookup("#trust-fingerprint").queryAs(TextField.class).getText())
        .isEqualTo(dev.loupe.ui.trust.FakeTrustPort.FINGERPRINT);
  }

  @Test
  void theLayoutTheUserLeftIsRestored(FxRobot robot) throws Exception {
    @SuppressWarnings("unchecked")
    TableView<FlowRow> table = robot.lookup("#flow-table").queryAs(TableView.class);
    Stage stage = (Stage) table.getScene().getWindow();
    robot.interact(() -> {
      var cols = table.getColumns();
      var tier = cols.stream().filter(c -> "col-tier".equals(c.getId())).findFirst().orElseThrow();
      var host = cols.stream().filter(c -> "col-host".equals(c.getId())).findFirst().orElseThrow();
      tier.setVisible(false);
      cols.remove(host);
      cols.add(0, host); // the user dragged Host to the front
      host.setPrefWidth(333);
    });
    java.util.concurrent.atomic.AtomicReference<WindowLayout> left = new java.util.concurrent.atomic.AtomicReference<>();
    robot.interact(() -> left.set(window.layout(stage)));
    left.get().save(confdir);

    WindowLayout loaded = WindowLayout.load(confdir);
    assertThat(loaded).isEqualTo(left.get());
    java.util.concurrent.atomic.AtomicReference<java.util.List<String>> restored = new java.util.concurrent.atomic.AtomicReference<>();
    robot.interact(() -> {
      FlowListViewModel other = new FlowListViewModel(proxy.store(), Platform::runLater);
      MainWindow again = new MainWindow(other, new DesktopContext(proxy.store(), "127.0.0.1:" + proxy.port(), confdir,
          Settings.DEFAULTS, s -> "", systemProxy, new dev.loupe.ui.trust.FakeTrustPort(),
          proxy.engine().intercept(), proxy.engine()::replay));
      again.scene(loaded);
      restored.set(again.table().getColumns().stream()
          .map(c -> c.getId() + (c.isVisible() ? "" : " hidden") + (c.getId().equals("col-host") ? " " + (int) c.getPrefWidth() : ""))
          .toList());
      again.close();
      other.close();
    });
    assertThat(restored.get()).startsWith("col-host 333", "col-n").contains("col-tier hidden");
  }

  @Test
  void selectingAFlowShowsItsBodyInTheDetailPane(FxRobot robot) throws Exception {
    proxy.client().send(HttpRequest.newBuilder(URI.create(origin.url() + "/headers?detail"))
        .header("X-Detail", "shown below the table").build(), HttpResponse.BodyHandlers.ofString());
    @SuppressWarnings("unchecked")
    TableView<FlowRow> table = robot.lookup("#flow-table").queryAs(TableView.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.getItems().size() == 1 && table.getItems().get(0).status() != 0);
    robot.clickOn(table).type(javafx.scene.input.KeyCode.HOME); // keyboard: the first row
    if (table.getSelectionModel().isEmpty()) {
      robot.interact(() -> table.getSelectionModel().select(0));
    }
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> robot.lookup("#detail-tabs").tryQuery().isPresent());
    javafx.scene.control.TabPane tabs = robot.lookup("#detail-tabs").queryAs(javafx.scene.control.TabPane.class);
    robot.interact(() -> tabs.getTabs().stream().filter(t -> t.getText().equals("Response")).findFirst()
        .ifPresent(t -> tabs.getSelectionModel().select(t)));
    javafx.scene.control.TabPane response = robot.lookup("#response-tabs").queryAs(javafx.scene.control.TabPane.class);
    robot.interact(() -> response.getTabs().stream().filter(t -> t.getText().equals("Body")).findFirst()
        .ifPresent(t -> response.getSelectionModel().select(t)));
    org.fxmisc.richtext.CodeArea body = robot.lookup("#response-body-text").queryAs(org.fxmisc.richtext.CodeArea.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> body.getText().contains("shown below the table"));
    assertThat(robot.lookup("#detail-title").queryLabeled().getText()).contains("/headers?detail");
    Screenshots.write(table.getScene(), "main-window-detail.png");
  }
}
