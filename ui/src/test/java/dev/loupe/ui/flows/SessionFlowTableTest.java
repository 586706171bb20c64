package dev.loupe.ui.flows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.SelectionMode;
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
 * The flow table over a session file, as the window records (headless Monocle): a selected row whose flow the
 * session wrote and the store let go holds no flow once swept, and still opens, read back from the file.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(120)
class SessionFlowTableTest {
  private final RecordingStore store = new RecordingStore();
  private Path dir;
  private Session session;
  private FlowListViewModel vm;
  private FlowTableView table;

  @Start
  void start(Stage stage) throws Exception {
    dir = Files.createTempDirectory("session-flow-table-test");
    session = Session.open(dir.resolve("t.loupe"), dir);
    session.record(store, p -> { });
    vm = new FlowListViewModel(store, FlowCatalog.of(session), Platform::runLater, 30, null);
    table = new FlowTableView(vm, 100);
    table.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
    stage.setScene(new Scene(table, 800, 400));
    stage.show();
  }

  private void add(int i) {
    RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, dir));
    f.request(new RequestHead("GET", "https", "h.example", 443, "/" + i, "HTTP/1.1", Headers.EMPTY));
    f.timings().requestStart(1);
    store.add(f);
    f.response(new ResponseHead(200, "", "HTTP/1.1", Headers.of("content-type", "text/plain")));
    f.responseBody().append(ByteBuffer.wrap(("body " + i).getBytes(StandardCharsets.UTF_8)));
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
    session.close();
  }

  private <T> T fx(java.util.concurrent.Callable<T> task) throws Exception {
    T out = WaitForAsyncUtils.asyncFx(task).get(10, TimeUnit.SECONDS);
    WaitForAsyncUtils.waitForFxEvents();
    return out;
  }

  private void awaitTop(int row) throws Exception {
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.firstShownRow() == row);
    WaitForAsyncUtils.waitForFxEvents();
  }

  @Test
  void aSelectedRowWhoseFlowWasWrittenOpensFromTheFile(FxRobot robot) throws Exception {
    for (int i = 0; i < 300; i++) {
      add(i);
    }
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.rowCount() == 300);
    WaitForAsyncUtils.waitForFxEvents();
    fx(() -> {
      table.getSelectionModel().select(5);
      return null;
    });
    assertThat(table.selectedRowProperty().get().path()).isEqualTo("/5");

    for (int i = 300; i < 1500; i++) { // the store keeps the newest 1,000 flows the session wrote
      add(i);
    }
    session.flush();
    assertThat(store.get(table.selectedRowProperty().get().id())).as("the store let it go").isNull();
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.rowCount() == 1500);
    // swept within a few batches (or an idle pulse's sweep)
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> WaitForAsyncUtils.asyncFx(() -> vm.liveRows() <= store.size()).get());

    ScrollBar bar = robot.lookup("#flow-scroll").queryAs(ScrollBar.class);
    fx(() -> {
      bar.setValue(700); // the window moves away from the selected row, and back: the table reads its row again
      return null;
    });
    awaitTop(700);
    assertThat(table.selectedRowProperty().get().path()).isEqualTo("/5");
    fx(() -> {
      bar.setValue(0);
      return null;
    });
    awaitTop(0);

    FlowRow selected = table.selectedRowProperty().get();
    assertThat(table.getSelectionModel().getSelectedItem()).isSameAs(selected);
    assertThat(selected.path()).isEqualTo("/5");
    assertThat(selected.ref()).as("the row the table holds now: no flow").isInstanceOf(RowSource.StoredRef.class);
    Flow opened = fx(selected::flow); // as MainWindow's detail pane opens the selected row
    assertThat(opened.request().target()).isEqualTo("/5");
    assertThat(opened.responseBody().bytes()).asString().isEqualTo("body 5");
    assertThat(table.selectedRows()).singleElement()
        .extracting(r -> new String(r.flow().responseBody().bytes(), StandardCharsets.UTF_8)).isEqualTo("body 5");
  }
}
