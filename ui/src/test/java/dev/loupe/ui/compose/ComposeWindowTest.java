package dev.loupe.ui.compose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.flow.Flow;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import dev.loupe.ui.flows.FlowListViewModel;
import dev.loupe.ui.flows.FlowRow;
import dev.loupe.ui.settings.Settings;
import dev.loupe.ui.shell.DesktopContext;
import dev.loupe.ui.shell.MainWindow;
import dev.loupe.ui.shell.Screenshots;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javafx.application.Platform;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
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
 * The composer and the table's replay actions on the real window (headless Monocle) over a real
 * proxy to an HTTPS origin offering h2 and HTTP/1.1: what the origin receives is checked.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(120)
class ComposeWindowTest {
  private ProxyFixture proxy;
  private TestOrigin origin;
  private FlowListViewModel flows;
  private MainWindow window;
  @TempDir
  Path confdir;

  @Start
  void start(Stage stage) throws Exception {
    proxy = ProxyFixture.start();
    origin = TestOrigin.h2AndH1();
    flows = new FlowListViewModel(proxy.store(), Platform::runLater);
    window = new MainWindow(flows, new DesktopContext(proxy.store(), "127.0.0.1:" + proxy.port(), confdir,
        Settings.DEFAULTS, s -> "127.0.0.1:" + proxy.port(), new NoSystemProxy(),
        new dev.loupe.ui.trust.FakeTrustPort(), proxy.engine().intercept(), proxy.engine()::replay));
    stage.setScene(window.scene());
    stage.show();
  }

  @AfterEach
  void stop() {
    Platform.runLater(() -> {
      for (javafx.stage.Window w : List.copyOf(javafx.stage.Window.getWindows())) {
        if (w instanceof Stage s && s.getScene() != null && s.getScene().getRoot() != window.root()) {
          s.close();
        }
      }
    });
    WaitForAsyncUtils.waitForFxEvents();
    window.close();
    flows.close();
    proxy.close();
    origin.close();
  }

  @Test
  void theComposerSendsWhatWasTypedAndShowsTheAnswer(FxRobot robot) throws Exception {
    AtomicReference<ComposerWindow> composer = new AtomicReference<>();
    robot.interact(() -> composer.set(actions().openComposer()));
    ComposerViewModel vm = composer.get().viewModel();

    // An invalid URL is an inline error; nothing is sent.
    robot.clickOn("#composer-url").write("example.com/path");
    robot.clickOn("#composer-send");
    Label error = robot.lookup("#composer-error").queryAs(Label.class);
    assertThat(error.getText()).contains("http://");
    assertThat(error.isVisible()).isTrue();
    assertThat(proxy.store().size()).isZero();

    robot.interact(() -> vm.urlProperty().set(""));
    robot.clickOn("#composer-url").write(origin.url() + "/sha256?from=composer");
    robot.interact(() -> robot.lookup("#composer-method").queryComboBox().getEditor().clear());
    robot.clickOn("#composer-method").write("POST");
    robot.interact(() -> {
      vm.addHeader("X-Compose", "typed");
      vm.protocolProperty().set(Replayer.Protocol.H2);
    });
    robot.clickOn("#composer-tab-body"); // by id: the response has a "Body" tab too
    String text = "{\"hello\":\"origin\",\"n\":[1,2,3]}";
    robot.clickOn("#composer-body").write(text);
    robot.clickOn("#composer-pretty");
    String pretty = vm.bodyProperty().get();
    assertThat(pretty).contains("\n  \"hello\" : \"origin\"".replace(" : ", ": "));
    robot.clickOn("#composer-send");

    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> vm.flowIdProperty().get() >= 0);
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(error.getText()).isEmpty();
    TestOrigin.Seen seen = origin.awaitSeen("/sha256?from=composer");
    assertThat(seen.method()).isEqualTo("POST");
    assertThat(seen.protocol()).isEqualTo(TestOrigin.HTTP_2);
    assertThat(seen.headers().get("x-compose")).isEqualTo("typed");
    byte[] sent = pretty.getBytes(StandardCharsets.UTF_8);
    String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(sent)) + " " + sent.length;
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> expected.equals(vm.responseBody().textProperty().get().trim()));
    assertThat(vm.responseStatusProperty().get()).startsWith("200");
    long id = vm.flowIdProperty().get();
    assertThat(robot.lookup("#composer-flow-id").queryAs(Label.class).getText()).isEqualTo("flow #" + id);
    Flow recorded = proxy.store().snapshot().stream().filter(f -> f.id() == id).findFirst().orElseThrow();
    assertThat(recorded.replayOf()).isEqualTo(-1);
    assertThat(vm.history()).singleElement().satisfies(e -> assertThat(e.request().url()).endsWith("from=composer"));
    assertThat(confdir.resolve(ComposerHistory.FILE_NAME)).exists();
    Screenshots.write(composer.get().stage().getScene(), "composer.png");
  }

  @Test
  void replayEditAndReplayAndCompareFromTheTable(FxRobot robot) throws Exception {
    for (String q : new String[] {"a", "b"}) {
      HttpResponse<String> r = proxy.clientBuilder().version(java.net.http.HttpClient.Version.HTTP_2).build()
          .send(HttpRequest.newBuilder(URI.create(origin.url() + "/status/200?" + q)).header("X-Orig", q).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
    }
    @SuppressWarnings("unchecked")
    TableView<FlowRow> table = robot.lookup("#flow-table").queryAs(TableView.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> table.getItems().size() == 2 && table.getItems().stream().allMatch(r -> r.status() != 0));
    long first = table.getItems().get(0).id();
    long second = table.getItems().get(1).id();
    assertThat(table.getItems().get(0).serverProto()).isEqualTo("h2");

    // Ctrl+R on both: replayed in order, each over HTTP/2 as the originals, linked to them.
    robot.interact(() -> table.getSelectionModel().selectAll());
    robot.clickOn(table.lookup(".table-row-cell"));
    robot.interact(() -> table.getSelectionModel().selectAll());
    robot.press(KeyCode.CONTROL, KeyCode.R).release(KeyCode.R, KeyCode.CONTROL);
    ComposeActions actions = actions();
    Replays.Outcome o = actions.lastReplay().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(o.skipped()).isEmpty();
    assertThat(o.replayed()).extracting(Flow::replayOf).containsExactly(first, second);
    List<TestOrigin.Seen> replays = origin.seen().stream().filter(s -> s.uri().startsWith("/status/200")).toList();
    assertThat(replays).extracting(TestOrigin.Seen::uri)
        .containsExactly("/status/200?a", "/status/200?b", "/status/200?a", "/status/200?b");
    assertThat(replays.get(2).protocol()).isEqualTo(TestOrigin.HTTP_2);
    assertThat(replays.get(2).headers().get("x-orig")).isEqualTo("a");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.getItems().size() == 4);
    FlowRow replayRow = table.getItems().get(2);
    assertThat(replayRow.flow().replayOf()).isEqualTo(first);
    assertThat(dev.loupe.ui.detail.FlowMarks.marks(replayRow.flow())).isEqualTo("↻" + first);
    assertThat(robot.lookup("#status-notice").queryAs(Label.class).getText()).startsWith("Replayed 2 flows");

    // The replay's detail shows its link.
    robot.interact(() -> table.getSelectionModel().clearAndSelect(2));
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(robot.lookup("#detail-replay-of").queryAs(Label.class).getText()).isEqualTo("Replay of #" + first);

    // Replay over HTTP/1.1 from the context menu's submenu.
    robot.interact(() -> table.getSelectionModel().clearAndSelect(0));
    robot.interact(() -> ((javafx.scene.control.Menu) table.getContextMenu().getItems().stream()
        .filter(i -> "replay-over".equals(i.getId())).findFirst().orElseThrow()).getItems().get(0).fire());
    Replays.Outcome h1 = actions.lastReplay().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(h1.replayed()).singleElement().satisfies(f -> assertThat(f.serverProtocol()).isEqualTo("HTTP/1.1"));
    assertThat(origin.seen().get(origin.seen().size() - 1).protocol()).isEqualTo(TestOrigin.HTTP_1_1);

    // Edit and replay: the composer opens filled from the flow; an edited URL goes out, linked.
    AtomicReference<ComposerWindow> composer = new AtomicReference<>();
    robot.interact(() -> composer.set(actions.editAndReplay()));
    ComposerViewModel vm = composer.get().viewModel();
    assertThat(vm.urlProperty().get()).isEqualTo(origin.url() + "/status/200?a");
    assertThat(vm.replayOfProperty().get()).isEqualTo(first);
    assertThat(composer.get().stage().getTitle()).isEqualTo("Loupe — edit and replay #" + first);
    robot.clickOn("#composer-url").push(KeyCode.END).write("&edited=1");
    robot.clickOn("#composer-send");
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> vm.flowIdProperty().get() >= 0);
    assertThat(origin.awaitSeen("edited=1").headers().get("x-orig")).isEqualTo("a");
    assertThat(vm.lastFlowProperty().get().replayOf()).isEqualTo(first);

    // Compare (Ctrl+D) the two originals.
    robot.interact(() -> {
      table.getSelectionModel().clearSelection();
      table.getSelectionModel().selectIndices(0, 1);
    });
    AtomicReference<dev.loupe.ui.diff.DiffWindow> diff = new AtomicReference<>();
    robot.interact(() -> diff.set(actions.compareSelected()));
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> diff.get().viewModel().requestProperty().get() != null);
    assertThat(diff.get().viewModel().requestProperty().get().headers())
        .filteredOn(r -> r.name().equalsIgnoreCase("x-orig")).singleElement()
        .satisfies(r -> assertThat(r.kind()).isEqualTo(dev.loupe.ui.diff.LineDiff.Kind.CHANGED));
  }

  @Test
  void aFlowARuleChangedIsMarkedAndShowsOriginalVsModified(FxRobot robot) throws Exception {
    proxy.intercept().rules().add(new dev.loupe.engine.api.intercept.Rule(null, "tag posts", true, "~m POST",
        new dev.loupe.engine.api.intercept.RuleAction.Rewrite(List.of(new dev.loupe.engine.api.intercept.RewriteOp(
            dev.loupe.engine.api.intercept.RewriteOp.Side.REQUEST, dev.loupe.engine.api.intercept.RewriteOp.Kind.SET_HEADER,
            "X-Tagged", "yes")))));
    proxy.client().send(HttpRequest.newBuilder(URI.create(origin.url() + "/sha256"))
        .POST(HttpRequest.BodyPublishers.ofString("abc")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(origin.awaitSeen("/sha256").headers().get("x-tagged")).isEqualTo("yes");
    @SuppressWarnings("unchecked")
    TableView<FlowRow> table = robot.lookup("#flow-table").queryAs(TableView.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> table.getItems().size() == 1 && table.getItems().get(0).status() != 0);
    assertThat(dev.loupe.ui.detail.FlowMarks.marks(table.getItems().get(0).flow())).isEqualTo("✎");
    robot.interact(() -> table.getSelectionModel().clearAndSelect(0));
    // The detail pane fills in after the selection settles (rows are paged; the flow is fetched).
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> !robot.lookup("#detail-modified").queryAll().isEmpty());
    assertThat(robot.lookup("#detail-modified").queryAs(Label.class).getText())
        .isEqualTo("Modified by: rule \"tag posts\"");
    robot.clickOn("#detail-modified-compare");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> !robot.lookup("#detail-diff-request-headers").queryAll().isEmpty()
        && !robot.lookup("#detail-diff-request-headers").queryAs(TableView.class).getItems().isEmpty());
    @SuppressWarnings("unchecked")
    TableView<dev.loupe.ui.diff.HeaderDiff.Row> headers =
        robot.lookup("#detail-diff-request-headers").queryAs(TableView.class);
    assertThat(headers.getItems()).filteredOn(r -> r.kind() != dev.loupe.ui.diff.LineDiff.Kind.SAME).singleElement()
        .isEqualTo(new dev.loupe.ui.diff.HeaderDiff.Row("X-Tagged", null, "yes", dev.loupe.ui.diff.LineDiff.Kind.ADDED));
  }

  private ComposeActions actions() {
    return window.composeActions();
  }

  /** This test does not switch the OS proxy. */
  static final class NoSystemProxy implements dev.loupe.ui.sysproxy.SystemProxyControl {
    @Override
    public String backendName() {
      return "none";
    }

    @Override
    public String unsupportedReason() {
      return "not in this test";
    }

    @Override
    public boolean isEnabled() {
      return false;
    }

    @Override
    public Result enable() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Result disable() {
      throw new UnsupportedOperationException();
    }
  }
}
