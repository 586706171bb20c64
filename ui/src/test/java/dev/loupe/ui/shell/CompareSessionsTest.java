package dev.loupe.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.engine.api.session.FlowDiff;
import dev.loupe.engine.filter.Filter;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import dev.loupe.ui.diff.SessionDiffWindow;
import dev.loupe.ui.flows.FlowCatalog;
import dev.loupe.ui.flows.FlowListViewModel;
import dev.loupe.ui.flows.FlowRow;
import dev.loupe.ui.session.SessionManager;
import dev.loupe.ui.settings.Settings;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javafx.application.Platform;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * File › Compare Sessions… in the real window (headless Monocle) recording a real proxy's traffic
 * into its session: the current session against a HAR of it with one status changed, one entry
 * gone and one new; the diff window lists them, filters them, opens the changed pair in the
 * two-flow compare and exports the diff.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(120)
class CompareSessionsTest {
  private ProxyFixture proxy;
  private TestOrigin origin;
  private SessionManager sessions;
  private FlowListViewModel vm;
  private MainWindow window;
  private Stage main;
  @TempDir Path dir;

  @Start
  void start(Stage stage) throws Exception {
    proxy = ProxyFixture.start();
    origin = TestOrigin.http();
    sessions = new SessionManager(dir.resolve("conf"), proxy.store(), dir);
    sessions.start(null);
    vm = new FlowListViewModel(proxy.store(), FlowCatalog.of(sessions.current()), Platform::runLater);
    window = new MainWindow(vm, new DesktopContext(proxy.store(), "127.0.0.1:" + proxy.port(), dir.resolve("conf"),
        Settings.DEFAULTS, s -> "127.0.0.1:" + proxy.port(), new RecordingSystemProxy(),
        new dev.loupe.ui.trust.FakeTrustPort(), proxy.engine().intercept(), proxy.engine()::replay,
        dev.loupe.ui.status.ActivityFeed.NONE, sessions));
    stage.setScene(window.scene());
    stage.show();
    main = stage;
  }

  @AfterEach
  void stop() throws Exception {
    for (Window w : List.copyOf(Window.getWindows())) {
      if (w instanceof Stage s && s.getScene() != null && s.getScene().getRoot() != null
          && s.getScene().getRoot().getId() != null && s != main) {
        Platform.runLater(s::close);
      }
    }
    WaitForAsyncUtils.waitForFxEvents();
    window.close();
    vm.close();
    sessions.close();
    proxy.close();
    origin.close();
  }

  @Test
  void compareSessionsListsTheChangesFiltersThemAndOpensAPair(FxRobot robot) throws Exception {
    for (String path : new String[] {"/status/200?one", "/status/200?two", "/bytes/300?three"}) {
      HttpResponse<String> r = proxy.client().send(HttpRequest.newBuilder(URI.create(origin.url() + path)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
    }
    @SuppressWarnings("unchecked")
    TableView<FlowRow> flows = robot.lookup("#flow-table").queryAs(TableView.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> flows.getItems().size() == 3 && flows.getItems().stream().allMatch(r -> r.status() != 0));

    // B: a HAR of this session, edited: #1 answered 503, #2 gone, a new entry
    Path exported = dir.resolve("exported.har");
    assertThat(sessions.exportHar(exported, Filter.ALL)).isEqualTo(3);
    ObjectMapper json = new ObjectMapper();
    ObjectNode har = (ObjectNode) json.readTree(exported.toFile());
    ArrayNode entries = (ArrayNode) har.path("log").path("entries");
    ((ObjectNode) entries.get(0).path("response")).put("status", 503);
    ObjectNode extra = entries.get(2).deepCopy();
    ((ObjectNode) extra.path("request")).put("url", origin.url() + "/bytes/300?four");
    entries.remove(1);
    entries.add(extra);
    Path b = dir.resolve("edited.har");
    json.writeValue(b.toFile(), har);

    window.sessionMenu().asker((title, suggested, save, extensions) -> b);
    robot.clickOn("#menu-file");
    robot.clickOn("#file-compare");
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(robot.lookup("#compare-a-current").queryAs(javafx.scene.control.RadioButton.class).isSelected()).isTrue();
    assertThat(robot.lookup("#compare-ok").queryButton().isDisabled()).as("no B yet").isTrue();
    robot.clickOn("#compare-b-browse");
    assertThat(robot.lookup("#compare-b-path").queryAs(javafx.scene.control.TextField.class).getText())
        .isEqualTo(b.toString());
    robot.clickOn("#compare-ok");

    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> robot.lookup("#session-diff-table").tryQuery().isPresent());
    @SuppressWarnings("unchecked")
    TableView<FlowDiff> table = robot.lookup("#session-diff-table").queryAs(TableView.class);
    Label status = robot.lookup("#session-diff-status").queryAs(Label.class);
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> status.getText().contains("unchanged"));
    assertThat(status.getText()).isEqualTo("1 changed, 1 removed, 1 added, 1 unchanged (A: 3 flows, B: 3 flows)");
    assertThat(table.getItems()).extracting(FlowDiff::kind).containsExactlyInAnyOrder(FlowDiff.Kind.CHANGED,
        FlowDiff.Kind.REMOVED, FlowDiff.Kind.ADDED);
    FlowDiff changed = table.getItems().stream().filter(d -> d.kind() == FlowDiff.Kind.CHANGED).findFirst().orElseThrow();
    assertThat(changed.a().url()).endsWith("/status/200?one");
    assertThat(changed.changes()).extracting(FlowDiff.Change::aspect, FlowDiff.Change::after)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(FlowDiff.Aspect.STATUS, "503"));
    assertThat(robot.lookup("#session-diff-changed").queryAs(CheckBox.class).getText()).isEqualTo("Changed (1)");
    Screenshots.write(table.getScene(), "session-diff-window.png");

    // filters: by kind, by what changed, by text
    robot.clickOn("#session-diff-removed");
    robot.clickOn("#session-diff-added");
    assertThat(table.getItems()).extracting(FlowDiff::kind).containsExactly(FlowDiff.Kind.CHANGED);
    robot.clickOn("#session-diff-removed");
    robot.clickOn("#session-diff-added");
    robot.interact(() -> robot.lookup("#session-diff-aspect").queryAs(javafx.scene.control.ChoiceBox.class)
        .setValue(dev.loupe.ui.diff.SessionDiffViewModel.AspectFilter.BODY));
    assertThat(table.getItems()).as("no body changed").isEmpty();
    robot.interact(() -> robot.lookup("#session-diff-aspect").queryAs(javafx.scene.control.ChoiceBox.class)
        .setValue(dev.loupe.ui.diff.SessionDiffViewModel.AspectFilter.ANY));
    robot.clickOn("#session-diff-filter").write("four");
    assertThat(table.getItems()).extracting(FlowDiff::kind).containsExactly(FlowDiff.Kind.ADDED);
    robot.interact(() -> robot.lookup("#session-diff-filter").queryAs(javafx.scene.control.TextField.class).clear());
    assertThat(table.getItems()).hasSize(3);

    // the changed pair opens in the two-flow compare
    assertThat(robot.lookup("#session-diff-compare").queryButton().isDisabled()).isTrue();
    robot.interact(() -> table.getSelectionModel().select(changed));
    robot.clickOn("#session-diff-compare");
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> robot.lookup("#diff-left-title").tryQuery().isPresent()
        && !robot.lookup("#diff-left-title").queryAs(Label.class).getText().isEmpty());
    assertThat(robot.lookup("#diff-left-title").queryAs(Label.class).getText())
        .isEqualTo("A #" + changed.a().id() + " GET " + changed.a().url());
    assertThat(robot.lookup("#diff-right-title").queryAs(Label.class).getText())
        .isEqualTo("B #" + changed.b().id() + " GET " + changed.b().url());

    // export: the whole diff as JSON
    Path out = dir.resolve("diff.json");
    AtomicReference<SessionDiffWindow> diffWindow = new AtomicReference<>();
    for (Window w : Window.getWindows()) {
      if (w.getScene() != null && "session-diff".equals(w.getScene().getRoot().getId())) {
        diffWindow.set((SessionDiffWindow) w.getProperties().get(SessionDiffWindow.class));
      }
    }
    assertThat(diffWindow.get()).isNotNull();
    // the compare window is on top of the diff window: close it first (the robot clicks what is on screen)
    for (Window w : List.copyOf(Window.getWindows())) {
      if (w.getScene() != null && "diff".equals(w.getScene().getRoot().getId())) {
        robot.interact(((Stage) w)::close);
      }
    }
    diffWindow.get().saveAsker((title, suggested) -> out);
    robot.clickOn("#session-diff-export-json");
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> Files.exists(out));
    JsonNode report = json.readTree(out.toFile());
    assertThat(report.path("summary").path("changed").asInt()).isEqualTo(1);
    assertThat(report.path("b").path("file").asText()).isEqualTo("edited.har");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> status.getText().startsWith("Exported the diff (3 lines)"));
  }
}
