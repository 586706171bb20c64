package dev.loupe.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.intercept.Breakpoint;
import dev.loupe.engine.flow.Flow;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.ui.flows.FlowListViewModel;
import dev.loupe.ui.flows.FlowRow;
import dev.loupe.ui.settings.Settings;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Node;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
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
 * Breakpoints end to end: the real window on a real proxy. "Break on…" from the flow table's
 * context menu adds a breakpoint for the flow's host; the next request to it pauses (marked in the
 * table and the status bar), opens the editor, is edited by typing, and the origin receives the
 * edited bytes; the same for a response, which the client receives edited.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(120)
class BreakpointEndToEndTest {
  private ProxyFixture proxy;
  private TestOrigin origin;
  private FlowListViewModel vm;
  private MainWindow window;
  @TempDir java.nio.file.Path confdir;

  @Start
  void start(Stage stage) throws Exception {
    proxy = ProxyFixture.start();
    origin = TestOrigin.http();
    vm = new FlowListViewModel(proxy.store(), Platform::runLater);
    window = new MainWindow(vm, new DesktopContext(proxy.store(), "127.0.0.1:" + proxy.port(), confdir,
        Settings.DEFAULTS, s -> "127.0.0.1:" + proxy.port(), new RecordingSystemProxy(),
        new dev.loupe.ui.trust.FakeTrustPort(), proxy.engine().intercept(), proxy.engine()::replay));
    stage.setScene(window.scene());
    stage.show();
  }

  @AfterEach
  void stop() throws Exception {
    proxy.intercept().releaseAll();
    // on the UI thread, flow list first: a batch of rows applied after the detail pane closed fails
    WaitForAsyncUtils.asyncFx(() -> {
      vm.close();
      window.close();
    }).get(10, TimeUnit.SECONDS);
    proxy.close();
    origin.close();
  }

  @SuppressWarnings("unchecked")
  private TableView<FlowRow> table(FxRobot robot) {
    return robot.lookup("#flow-table").queryAs(TableView.class);
  }

  /** Sends one request through the proxy, waits for its row, and adds a breakpoint for its host from the context menu. */
  private void breakOnHostOfAFirstFlow(FxRobot robot, boolean request) throws Exception {
    proxy.client().send(HttpRequest.newBuilder(URI.create(origin.url() + "/status/200?first")).build(),
        HttpResponse.BodyHandlers.ofString());
    TableView<FlowRow> table = table(robot);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.getItems().size() == 1 && table.getItems().get(0).status() == 200);
    WaitForAsyncUtils.waitForFxEvents();
    Node row = robot.lookup("#flow-table .table-row-cell").queryAll().stream()
        .filter(n -> ((TableRow<?>) n).getIndex() == 0).findFirst().orElseThrow();
    robot.clickOn(row);
    // headless Monocle turns no right click into a context-menu request: open the table's menu as it would
    robot.interact(() -> table.getContextMenu().show(row, javafx.geometry.Side.BOTTOM, 10, 0));
    robot.clickOn("Break on…");
    robot.clickOn(request ? "Requests to 127.0.0.1" : "Responses from 127.0.0.1");
    assertThat(proxy.intercept().breakpoints().entries()).singleElement()
        .isEqualTo(new Breakpoint(proxy.intercept().breakpoints().entries().get(0).id(), "~d ^127\\.0\\.0\\.1$", request,
            !request, true));
  }

  private FlowRow rowOf(FxRobot robot, String path) {
    return table(robot).getItems().stream().filter(r -> r.path().startsWith(path)).findFirst().orElse(null);
  }

  private void awaitEditor() throws Exception {
    WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS,
        () -> WaitForAsyncUtils.asyncFx(() -> window.intercept().pausedWindow().stage().isShowing()).get());
    WaitForAsyncUtils.waitForFxEvents();
  }

  private static void replaceText(FxRobot robot, Node field, String text) {
    robot.clickOn(field);
    robot.push(KeyCode.CONTROL, KeyCode.A);
    robot.write(text);
  }

  @Test
  void anEditedRequestReachesTheOriginByteForByte(FxRobot robot) throws Exception {
    breakOnHostOfAFirstFlow(robot, true);
    CompletableFuture<HttpResponse<String>> response = proxy.client().sendAsync(
        HttpRequest.newBuilder(URI.create(origin.url() + "/sha256")).timeout(Duration.ofSeconds(60))
            .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("hello")).build(),
        HttpResponse.BodyHandlers.ofString());
    awaitEditor();
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> rowOf(robot, "/sha256") != null && rowOf(robot, "/sha256").paused() == Flow.Paused.REQUEST);
    assertThat(robot.lookup("#status-paused").queryAs(Hyperlink.class).getText()).isEqualTo("1 paused");
    Node pausedRow = robot.lookup("#flow-table .flow-paused").query();
    assertThat(((TableRow<?>) pausedRow).getItem()).isEqualTo(rowOf(robot, "/sha256"));
    assertThat(response).isNotDone();

    replaceText(robot, robot.lookup("#bp-body").query(), "hello, edited");
    robot.clickOn("#bp-headers-add");
    TextField name = robot.lookup("#bp-headers .header-name").queryAllAs(TextField.class).stream()
        .filter(f -> f.getText().isEmpty()).findFirst().orElseThrow();
    robot.clickOn(name).write("X-Edited");
    robot.push(KeyCode.TAB).write("yes");
    robot.clickOn("#bp-resume");

    byte[] edited = "hello, edited".getBytes(StandardCharsets.UTF_8);
    assertThat(response.get(30, TimeUnit.SECONDS).body()).isEqualTo(TestData.sha256(edited) + " " + edited.length);
    TestOrigin.Seen seen = origin.awaitSeen("/sha256");
    assertThat(seen.headers().get("X-Edited")).isEqualTo("yes");
    assertThat(seen.headers().get("Content-Length")).isEqualTo(Integer.toString(edited.length));
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> rowOf(robot, "/sha256").paused() == null
        && rowOf(robot, "/sha256").status() == 200);
    assertThat(rowOf(robot, "/sha256").flow().modifiedBy()).contains("breakpoint: request edited");
    assertThat(robot.lookup("#status-paused").queryAs(Hyperlink.class).isVisible()).isFalse();

    // Breakpoints off: the next request goes through without pausing
    robot.clickOn("#breakpoints");
    assertThat(proxy.intercept().breakpoints().active()).isFalse();
    HttpResponse<String> free = proxy.client().send(HttpRequest.newBuilder(URI.create(origin.url() + "/status/204?free"))
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(free.statusCode()).isEqualTo(204);
  }

  @Test
  void anEditedResponseReachesTheClient(FxRobot robot) throws Exception {
    breakOnHostOfAFirstFlow(robot, false);
    CompletableFuture<HttpResponse<String>> response = proxy.client().sendAsync(
        HttpRequest.newBuilder(URI.create(origin.url() + "/status/200?second")).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
    awaitEditor();
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> rowOf(robot, "/status/200?second") != null && rowOf(robot, "/status/200?second").paused() == Flow.Paused.RESPONSE);
    assertThat(robot.lookup("#bp-status").queryAs(TextField.class).getText()).isEqualTo("200");
    replaceText(robot, robot.lookup("#bp-status").query(), "203");
    replaceText(robot, robot.lookup("#bp-body").query(), "patched by hand");
    robot.clickOn("#bp-resume");

    HttpResponse<String> r = response.get(30, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(203);
    assertThat(r.body()).isEqualTo("patched by hand");
    assertThat(r.headers().firstValue("content-length")).hasValue("15");
  }
}
