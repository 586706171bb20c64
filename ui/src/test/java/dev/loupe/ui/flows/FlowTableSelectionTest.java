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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.SelectionMode;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The selection survives updates of the rows the table holds (headless Monocle). JavaFX's selection model clears
 * the selection when a change replaces every row it holds, which an update of the only row (a flow completing while
 * the user looks at it) is; the detail pane then went blank.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(60)
class FlowTableSelectionTest {
  private final RecordingStore store = new RecordingStore();
  private final List<RecordedFlow> flows = new ArrayList<>();
  private Path spill;
  private FlowListViewModel vm;
  private FlowTableView table;

  @Start
  void start(Stage stage) throws Exception {
    spill = Files.createTempDirectory("flow-table-selection-test");
    vm = new FlowListViewModel(store, FlowCatalog.NONE, Platform::runLater, 30, null);
    table = new FlowTableView(vm, 100);
    table.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
    stage.setScene(new Scene(table, 800, 400));
    stage.show();
  }

  @AfterEach
  void stop() throws Exception {
    WaitForAsyncUtils.asyncFx(() -> {
      vm.close();
      table.getScene().getWindow().hide();
    }).get(10, TimeUnit.SECONDS);
  }

  /** A flow in flight: request sent, no response yet. */
  private RecordedFlow start(int i) {
    RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spill));
    f.request(new RequestHead("GET", "https", "h.example", 443, "/" + i, "HTTP/1.1", Headers.EMPTY));
    f.timings().requestStart(1);
    store.add(f);
    flows.add(f);
    return f;
  }

  private void complete(RecordedFlow f) {
    f.response(new ResponseHead(200, "", "HTTP/1.1", Headers.EMPTY));
    f.timings().responseEnd(2_000_000);
    f.complete();
    store.completed(f);
  }

  private void fx(Runnable r) throws Exception {
    WaitForAsyncUtils.asyncFx(r).get(10, TimeUnit.SECONDS);
    WaitForAsyncUtils.waitForFxEvents();
  }

  private void awaitStatus(int index, int status) throws Exception {
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> table.getItems().size() > index && table.getItems().get(index).status() == status);
    WaitForAsyncUtils.waitForFxEvents();
  }

  @Test
  void theOnlyRowStaysSelectedWhenItsFlowCompletes() throws Exception {
    RecordedFlow f = start(0);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.getItems().size() == 1);
    fx(() -> table.getSelectionModel().clearAndSelect(0));
    assertThat(table.selectedRowProperty().get().status()).isZero();

    complete(f);
    awaitStatus(0, 200);
    assertThat(table.getSelectionModel().getSelectedIndices()).containsExactly(0);
    assertThat(table.selectedRowProperty().get()).as("the lead is the updated row").isNotNull()
        .satisfies(r -> assertThat(r.status()).isEqualTo(200));
  }

  @Test
  void everySelectedRowStaysSelectedWhenAllOfThemUpdateAndRowsArrive() throws Exception {
    RecordedFlow a = start(0);
    RecordedFlow b = start(1);
    start(2);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.getItems().size() == 3);
    fx(() -> {
      table.getSelectionModel().clearSelection();
      table.getSelectionModel().selectIndices(2, 0); // the lead is row 0
    });
    assertThat(table.selectedRowProperty().get().path()).isEqualTo("/0");

    complete(a);
    complete(b);
    complete(flows.get(2));
    start(3);
    awaitStatus(2, 200);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.getItems().size() == 4);
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(table.getSelectionModel().getSelectedIndices()).containsExactlyInAnyOrder(0, 2);
    assertThat(table.selectedRowProperty().get().path()).isEqualTo("/0");
    assertThat(table.selectedRowProperty().get().status()).isEqualTo(200);
  }

  @Test
  void aRemovedSelectedRowIsLetGo() throws Exception {
    start(0);
    start(1);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.getItems().size() == 2);
    fx(() -> table.getSelectionModel().clearAndSelect(1));
    fx(() -> { // as File > New does
      store.clear();
      vm.clear();
    });
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.getItems().isEmpty());
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(table.getSelectionModel().getSelectedItems()).isEmpty();
    assertThat(table.selectedRowProperty().get()).isNull();
    assertThat(table.selectedRows()).isEmpty();
  }
}
