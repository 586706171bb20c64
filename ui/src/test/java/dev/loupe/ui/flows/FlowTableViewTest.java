package dev.loupe.ui.flows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.SelectionMode;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The flow table over more rows than its window (a window of 100 rows over 1,000 flows, headless Monocle): the bar
 * over all rows, scrolling near the window's edge, Home and End, and the selection across window moves.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(120)
class FlowTableViewTest {
  private final RecordingStore store = new RecordingStore();
  private Path spill;
  private FlowListViewModel vm;
  private FlowTableView table;

  @Start
  void start(Stage stage) throws Exception {
    spill = Files.createTempDirectory("flow-table-test");
    for (int i = 0; i < 1000; i++) {
      add(i);
    }
    vm = new FlowListViewModel(store, FlowCatalog.NONE, Platform::runLater, 30, null);
    table = new FlowTableView(vm, 100);
    table.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
    stage.setScene(new Scene(table, 800, 400));
    stage.show();
  }

  private void add(int i) {
    RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spill));
    f.request(new RequestHead("GET", "https", "h.example", 443, "/" + i, "HTTP/1.1", Headers.EMPTY));
    f.timings().requestStart(1);
    store.add(f);
    f.response(new ResponseHead(200, "", "HTTP/1.1", Headers.EMPTY));
    f.timings().responseEnd(2_000_000);
    f.complete();
    store.completed(f);
  }

  @AfterEach
  void stop() throws Exception {
    WaitForAsyncUtils.asyncFx(() -> {
      vm.close();
      table.getScene().getWindow().hide();
    }).get(10, TimeUnit.SECONDS);
  }

  private <T> T fx(java.util.concurrent.Callable<T> task) throws Exception {
    T out = WaitForAsyncUtils.asyncFx(task).get(10, TimeUnit.SECONDS);
    WaitForAsyncUtils.waitForFxEvents();
    return out;
  }

  private void awaitRows(int n) throws Exception {
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.rowCount() == n);
    WaitForAsyncUtils.waitForFxEvents();
  }

  private void awaitTop(int row) throws Exception {
    try {
      WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.firstShownRow() == row);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("row " + row + " not at the top: " + table.firstShownRow() + ", window at "
          + table.windowStart(), e);
    }
    WaitForAsyncUtils.waitForFxEvents();
  }

  private String pathAt(int row) throws Exception {
    return fx(() -> vm.visibleRows().get(row).path());
  }

  @Test
  void theBarOverAllRowsMovesTheWindowAndASelectedRowStaysSelectedOutsideIt(FxRobot robot) throws Exception {
    awaitRows(1000);
    assertThat(table.getItems()).as("the TableView holds the window").hasSize(100);
    ScrollBar bar = robot.lookup("#flow-scroll").queryAs(ScrollBar.class);
    assertThat(bar.isVisible()).isTrue();
    assertThat(bar.getMax()).isGreaterThan(900);

    fx(() -> {
      table.getSelectionModel().select(5);
      return null;
    });
    assertThat(table.selectedRowProperty().get().path()).isEqualTo("/5");

    fx(() -> {
      bar.setValue(300); // as a drag of the bar would: only the last position of a frame is shown
      bar.setValue(700);
      return null;
    });
    awaitTop(700);
    assertThat(table.windowStart()).isBetween(600, 700);
    assertThat(pathAt(table.firstShownRow())).isEqualTo("/700");
    assertThat(table.getSelectionModel().getSelectedItems()).as("row 5 is not in the window").isEmpty();
    assertThat(table.selectedRowProperty().get().path()).as("but it stays selected").isEqualTo("/5");
    assertThat(table.selectedRows()).extracting(FlowRow::path).containsExactly("/5");

    for (int i = 1000; i < 1050; i++) { // rows keep arriving
      add(i);
    }
    awaitRows(1050);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> bar.getMax() > 1000); // the bar spans them
    assertThat(table.selectedRowProperty().get().path()).isEqualTo("/5");
    assertThat(table.firstShownRow()).as("the rows on screen stay").isEqualTo(700);

    fx(() -> {
      bar.setValue(0);
      return null;
    });
    awaitTop(0);
    assertThat(table.windowStart()).isZero();
    assertThat(table.getSelectionModel().getSelectedItem().path()).as("selected in the table again").isEqualTo("/5");

    fx(() -> {
      table.getSelectionModel().clearAndSelect(3); // the user picks another row
      table.scrollToRow(900);
      return null;
    });
    awaitTop(900);
    assertThat(table.selectedRows()).extracting(FlowRow::path).containsExactly("/3");
    fx(() -> {
      table.getSelectionModel().clearAndSelect(table.firstShownRow() - table.windowStart() + 1);
      return null;
    });
    assertThat(table.selectedRows()).as("another choice lets the row outside go").extracting(FlowRow::path)
        .containsExactly("/901");
    assertThat(table.selectedRowProperty().get().path()).isEqualTo("/901");
  }

  @Test
  void scrollingNearTheWindowsEdgeMovesItWithTheSameRowsOnScreen() throws Exception {
    awaitRows(1000);
    fx(() -> {
      table.scrollTo(85); // the TableView's own scrolling, inside the window
      return null;
    });
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.windowStart() > 0);
    awaitTop(85);
    int start = table.windowStart();
    assertThat(85 - start).as("row 85 is now well inside the window").isBetween(25, 75);
  }

  @Test
  void homeAndEndGoToTheFirstAndLastOfAllRows(FxRobot robot) throws Exception {
    awaitRows(1000);
    fx(() -> {
      table.requestFocus();
      table.getSelectionModel().select(10);
      table.getFocusModel().focus(10);
      return null;
    });
    robot.type(KeyCode.END);
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(table.windowStart()).isEqualTo(900);
    assertThat(table.getSelectionModel().getSelectedItem().path()).isEqualTo("/999");
    assertThat(table.selectedRows()).extracting(FlowRow::path).containsExactly("/999");
    robot.type(KeyCode.HOME);
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(table.windowStart()).isZero();
    assertThat(table.getSelectionModel().getSelectedItem().path()).isEqualTo("/0");
  }

  @Test
  void rowsAndStatusCellsGetTheirStyleClasses(FxRobot robot) throws Exception {
    awaitRows(1000);
    RecordedFlow notFound = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spill));
    notFound.request(new RequestHead("GET", "https", "h.example", 443, "/missing", "HTTP/1.1", Headers.EMPTY));
    notFound.timings().requestStart(1);
    store.add(notFound);
    notFound.response(new ResponseHead(404, "", "HTTP/1.1", Headers.EMPTY));
    notFound.timings().responseEnd(2_000_000);
    notFound.complete();
    store.completed(notFound);
    RecordedFlow waiting = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spill));
    waiting.request(new RequestHead("GET", "https", "h.example", 443, "/waiting", "HTTP/1.1", Headers.EMPTY));
    waiting.timings().requestStart(1);
    store.add(waiting);
    awaitRows(1002);
    fx(() -> {
      table.scrollToRow(1001);
      return null;
    });
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> shows(robot, "/missing") && shows(robot, "/waiting"));
    WaitForAsyncUtils.waitForFxEvents();
    javafx.scene.control.TableRow<?> missing = row(robot, "/missing");
    javafx.scene.control.TableRow<?> inFlight = row(robot, "/waiting");
    assertThat(inFlight.getStyleClass()).contains("flow-in-flight");
    assertThat(missing.getStyleClass()).doesNotContain("flow-in-flight");
    assertThat(robot.from(missing).lookup(".status-4xx").queryAll()).as("the 404's status cell").hasSize(1);
    assertThat(robot.from(inFlight).lookup(".status-4xx").queryAll()).isEmpty();
    assertThat(robot.from(inFlight).lookup("…").queryAll()).as("no status yet").isNotEmpty();

    waiting.response(new ResponseHead(503, "", "HTTP/1.1", Headers.EMPTY)); // it ends: the same row, restyled
    waiting.timings().responseEnd(3_000_000);
    waiting.complete();
    store.completed(waiting);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> shows(robot, "/waiting")
        && !row(robot, "/waiting").getStyleClass().contains("flow-in-flight"));
    assertThat(robot.from(row(robot, "/waiting")).lookup(".status-5xx").queryAll()).hasSize(1);
  }

  private static boolean shows(FxRobot robot, String path) {
    return robot.lookup(".table-row-cell").queryAllAs(javafx.scene.control.TableRow.class).stream()
        .anyMatch(r -> r.getItem() instanceof FlowRow f && f.path().equals(path) && r.isVisible());
  }

  private static javafx.scene.control.TableRow<?> row(FxRobot robot, String path) {
    return robot.lookup(".table-row-cell").queryAllAs(javafx.scene.control.TableRow.class).stream()
        .filter(r -> r.getItem() instanceof FlowRow f && f.path().equals(path) && r.isVisible())
        .findFirst().orElseThrow(() -> new AssertionError("no row shows " + path));
  }
}
