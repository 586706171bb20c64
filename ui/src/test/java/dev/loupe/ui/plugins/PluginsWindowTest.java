package dev.loupe.ui.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.ui.settings.Settings;
import dev.loupe.ui.shell.Themes;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The Plugins window on headless Monocle over a real plugin registry, driven as a user would. */
@ExtendWith(ApplicationExtension.class)
@Timeout(120)
class PluginsWindowTest {
  private final TestPlugins plugins = new TestPlugins();
  private PluginsViewModel vm;
  private PluginsWindow window;

  @Start
  void start(Stage stage) {
    Scene scene = new Scene(new StackPane(new Label("main")), 200, 100);
    Themes.apply(scene, Settings.Theme.LIGHT);
    stage.setScene(scene);
    stage.show();
    vm = new PluginsViewModel(plugins, Platform::runLater, Executors.newSingleThreadExecutor());
    window = new PluginsWindow(stage, vm);
    window.show();
  }

  @AfterEach
  void stop() throws Exception {
    WaitForAsyncUtils.asyncFx(() -> {
      vm.close();
      window.stage().hide();
    }).get(10, TimeUnit.SECONDS);
    plugins.close();
  }

  @Test
  void switchReloadAndErrorsAsAUserSeesThem(FxRobot robot) throws Exception {
    TableView<?> table = robot.lookup("#plugins-table").queryAs(TableView.class);
    assertThat(table.getItems()).hasSize(2);
    assertThat(robot.lookup("#plugins-views").queryAs(Label.class).getText()).isEqualTo("Content views: Upper");

    // The switch of the first row switches the plugin in the registry.
    CheckBox first = robot.lookup("#plugins-table .plugin-enabled").queryAllAs(CheckBox.class).iterator().next();
    robot.clickOn(first);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> !plugins.tagger.info().enabled());
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> "tagger switched off".equals(robot.lookup("#plugins-message").queryAs(Label.class).getText()));

    // Reload applies to the script, not to the class-path plugin.
    Button reload = robot.lookup("#plugins-reload").queryAs(Button.class);
    assertThat(reload.isDisabled()).as("nothing selected").isTrue();
    robot.clickOn("logger");
    assertThat(reload.isDisabled()).isTrue();
    robot.clickOn("tagger");
    assertThat(reload.isDisabled()).isFalse();
    robot.clickOn(reload);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> robot.lookup("#plugins-message").queryAs(Label.class).getText().startsWith("Reloaded tagger"));
    assertThat(plugins.tagger.info().version()).isEqualTo("2.0");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> robot.lookup("2.0").tryQuery().isPresent());

    // A hook failing elsewhere shows up live.
    plugins.logger.problem("configure: IllegalArgumentException (bad option)");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> robot.lookup("configure: IllegalArgumentException (bad option)").tryQuery().isPresent());
  }
}
