package dev.loupe.ui.diff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.ui.shell.Screenshots;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The compare window (headless Monocle): two flows side by side, the changed header marked. */
@ExtendWith(ApplicationExtension.class)
@Timeout(60)
class DiffWindowTest {
  @Start
  void start(Stage stage) {
    // the compare window is a stage of its own; the test opens it
  }

  @Test
  void twoFlowsSideBySideWithTheChangedHeaderMarked(FxRobot robot) throws Exception {
    Flow a = DiffViewModelTest.flow(11, "/api/items?page=1",
        Headers.of("Accept", "application/json", "User-Agent", "loupe-test/1", "X-Request-Id", "abc"), 200,
        Headers.of("Content-Type", "application/json", "Cache-Control", "max-age=60"),
        "{\"items\":[{\"id\":1,\"name\":\"alpha\"},{\"id\":2,\"name\":\"beta\"}],\"total\":2}");
    Flow b = DiffViewModelTest.flow(12, "/api/items?page=1",
        Headers.of("Accept", "text/html", "User-Agent", "loupe-test/1", "Cookie", "session=42"), 200,
        Headers.of("Content-Type", "application/json", "Cache-Control", "no-store"),
        "{\"items\":[{\"id\":1,\"name\":\"alpha\"},{\"id\":2,\"name\":\"gamma\"},{\"id\":3,\"name\":\"delta\"}],\"total\":3}");
    AtomicReference<DiffWindow> window = new AtomicReference<>();
    robot.interact(() -> window.set(DiffWindow.compare(null, a, b)));
    DiffViewModel vm = window.get().viewModel();
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> vm.requestProperty().get() != null);
    WaitForAsyncUtils.waitForFxEvents();

    assertThat(window.get().stage().getTitle()).isEqualTo("Loupe — compare #11 and #12");
    assertThat(robot.lookup("#diff-left-title").queryAs(Label.class).getText())
        .isEqualTo("#11 GET https://api.test/api/items?page=1");
    @SuppressWarnings("unchecked")
    TableView<HeaderDiff.Row> headers = robot.lookup("#diff-request-headers").queryAs(TableView.class);
    assertThat(headers.getItems()).extracting(HeaderDiff.Row::name, HeaderDiff.Row::kind).containsExactly(
        org.assertj.core.groups.Tuple.tuple("Accept", LineDiff.Kind.CHANGED),
        org.assertj.core.groups.Tuple.tuple("User-Agent", LineDiff.Kind.SAME),
        org.assertj.core.groups.Tuple.tuple("X-Request-Id", LineDiff.Kind.REMOVED),
        org.assertj.core.groups.Tuple.tuple("Cookie", LineDiff.Kind.ADDED));
    // The rows on screen carry the marking style: find the one showing Accept.
    assertThat(rowStyles(headers, "Accept")).contains("diff-changed");
    assertThat(rowStyles(headers, "User-Agent")).contains("diff-same").doesNotContain("diff-changed");
    assertThat(rowStyles(headers, "Cookie")).contains("diff-added");
    assertThat(robot.lookup("#diff-request-summary").queryAs(Label.class).getText())
        .isEqualTo("3 headers differ · bodies identical");

    robot.interact(() -> window.get().view().select("Response"));
    WaitForAsyncUtils.waitForFxEvents();
    @SuppressWarnings("unchecked")
    TableView<LineDiff.Row> body = robot.lookup("#diff-response-body").queryAs(TableView.class);
    assertThat(body.getItems()).extracting(LineDiff.Row::kind).contains(LineDiff.Kind.CHANGED, LineDiff.Kind.ADDED);
    assertThat(robot.lookup("#diff-response-note").queryAs(Label.class).getText()).contains("JSON compared pretty-printed");
    assertThat(rowStyles(headersOf(robot, "#diff-response-headers"), "Cache-Control")).contains("diff-changed");
    Screenshots.write(window.get().stage().getScene(), "diff-window.png");
    robot.interact(() -> window.get().stage().close());
  }

  @SuppressWarnings("unchecked")
  private static TableView<HeaderDiff.Row> headersOf(FxRobot robot, String id) {
    return robot.lookup(id).queryAs(TableView.class);
  }

  /** The style classes of the table row showing header {@code name}. */
  private static List<String> rowStyles(TableView<HeaderDiff.Row> table, String name) {
    for (Node n : table.lookupAll(".table-row-cell")) {
      if (n instanceof TableRow<?> row && row.getItem() instanceof HeaderDiff.Row r && r.name().equals(name)) {
        return List.copyOf(row.getStyleClass());
      }
    }
    throw new AssertionError("no row on screen for " + name);
  }
}
