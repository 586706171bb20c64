package dev.loupe.ui.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Queue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Plugins window's model without a display, over a real plugin registry; UI and background work run by hand. */
@Timeout(60)
class PluginsViewModelTest {
  final Queue<Runnable> ui = new ArrayDeque<>();
  final Queue<Runnable> background = new ArrayDeque<>();
  final TestPlugins plugins = new TestPlugins();
  final PluginsViewModel vm = new PluginsViewModel(plugins, ui::add, background::add);

  @AfterEach
  void stop() {
    vm.close();
    plugins.close();
  }

  void runAll() {
    while (!ui.isEmpty() || !background.isEmpty()) {
      while (!background.isEmpty()) {
        background.poll().run();
      }
      while (!ui.isEmpty()) {
        ui.poll().run();
      }
    }
  }

  @Test
  void rowsShowWhatEachPluginIsAndCosts() {
    assertThat(vm.rows()).extracting(PluginRow::name, PluginRow::version, PluginRow::source, PluginRow::hooks,
        PluginRow::tier, PluginRow::enabled, PluginRow::reloadable).containsExactly(
        org.assertj.core.groups.Tuple.tuple("tagger", "1.0", "script:/tmp/Tagger.java", "request",
            "changes flows matching ~d example.com", true, true),
        org.assertj.core.groups.Tuple.tuple("logger", "0", "classpath", "configure, done", "observes", true, false));
    assertThat(vm.contentViews()).containsExactly("Upper");
  }

  @Test
  void followsTheRegistryCoalescedToOneRefresh() {
    plugins.tagger.problem("Tagger.java:3:1: ';' expected");
    plugins.logger.problem("x");
    assertThat(ui).as("one refresh queued for both changes").hasSize(1);
    runAll();
    assertThat(vm.rows().get(0).lastError()).isEqualTo("Tagger.java:3:1: ';' expected");
    assertThat(vm.rows().get(1).lastError()).isEqualTo("x");
  }

  @Test
  void switchingRunsInTheBackgroundAndSaysSo() {
    vm.setEnabled(vm.rows().get(0), false);
    assertThat(plugins.tagger.info().enabled()).as("not on the UI thread").isTrue();
    runAll();
    assertThat(plugins.tagger.info().enabled()).isFalse();
    assertThat(vm.rows().get(0).enabled()).isFalse();
    assertThat(vm.messageProperty().get()).isEqualTo("tagger switched off");
    vm.setEnabled(vm.rows().get(0), true);
    runAll();
    assertThat(plugins.tagger.info().enabled()).isTrue();
  }

  @Test
  void reloadAndItsFailures() {
    vm.reload(vm.rows().get(1));
    assertThat(vm.messageProperty().get()).isEqualTo("logger is on the class path: restart Loupe to load a new version");
    assertThat(background).isEmpty();

    vm.reload(vm.rows().get(0));
    assertThat(vm.messageProperty().get()).isEqualTo("Reloading tagger…");
    runAll();
    assertThat(plugins.reloads).containsExactly("tagger");
    assertThat(vm.rows().get(0).version()).isEqualTo("2.0");
    assertThat(vm.messageProperty().get()).isEqualTo("Reloaded tagger from script:/tmp/Tagger.java");

    plugins.reloadProblem = "Tagger.java:1:1: class, interface, enum, or record expected";
    vm.reload(vm.rows().get(0));
    runAll();
    assertThat(vm.messageProperty().get()).isEqualTo("tagger: Tagger.java:1:1: class, interface, enum, or record expected");
    assertThat(vm.rows().get(0).lastError()).startsWith("Tagger.java:1:1");
    assertThat(vm.rows().get(0).version()).isEqualTo("2.0");
  }
}
