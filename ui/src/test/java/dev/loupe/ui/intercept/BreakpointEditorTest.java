package dev.loupe.ui.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.internal.intercept.RequestOutcome;
import dev.loupe.ui.settings.Settings;
import dev.loupe.ui.shell.Screenshots;
import dev.loupe.ui.shell.Themes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
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

/**
 * The paused-flows window on headless Monocle with a real InterceptService and real paused flows:
 * it opens by itself, a header and the body are edited by typing, and Resume hands the edited
 * request to the engine; flows released elsewhere leave the window, which closes when none is left.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(120)
class BreakpointEditorTest {
  private final InterceptService service = InterceptService.create();
  private InterceptControls controls;
  private Stage main;

  @Start
  void start(Stage stage) {
    main = stage;
    controls = new InterceptControls(service, Platform::runLater, () -> main, s -> { });
    StackPane root = new StackPane(controls.statusLabel());
    Scene scene = new Scene(root, 300, 100);
    Themes.apply(scene, Settings.Theme.LIGHT);
    stage.setScene(scene);
    stage.show();
  }

  @AfterEach
  void stop() throws Exception {
    service.releaseAll();
    WaitForAsyncUtils.asyncFx(controls::close).get(10, TimeUnit.SECONDS);
    service.close();
  }

  private PausedFlowsWindow window() throws Exception {
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> WaitForAsyncUtils.asyncFx(() -> controls.pausedWindow().stage().isShowing()).get());
    WaitForAsyncUtils.waitForFxEvents();
    return WaitForAsyncUtils.asyncFx(controls::pausedWindow).get();
  }

  /** The text field in {@code table} whose text is {@code text}. */
  private static TextField field(FxRobot robot, String table, String styleClass, String text) {
    return robot.lookup(table + " ." + styleClass).queryAllAs(TextField.class).stream()
        .filter(f -> f.getText().equals(text)).findFirst().orElseThrow(() -> new AssertionError("no " + text));
  }

  private static void replaceText(FxRobot robot, Node field, String text) {
    robot.clickOn(field);
    robot.push(KeyCode.CONTROL, KeyCode.A);
    robot.write(text);
  }

  @Test
  void editingAHeaderAndTheBodyThenResumeSendsTheEdits(FxRobot robot) throws Exception {
    PausedFlows.AtRequest at = PausedFlows.atRequest(service,
        PausedFlows.post("https://api.example.com/orders", "{\"qty\":1,\"item\":\"tea\"}"));
    PausedFlowsWindow window = window();
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(robot.lookup("#paused-count").queryAs(Label.class).getText()).isEqualTo("1 paused, oldest first");
    assertThat(robot.lookup("#status-paused").queryAs(Hyperlink.class).getText()).isEqualTo("1 paused");
    assertThat(robot.lookup("#bp-title").queryAs(Label.class).getText())
        .isEqualTo("#" + at.paused().flow().id() + "  POST https://api.example.com/orders — paused before the request goes upstream");
    assertThat(robot.lookup("#bp-url").queryAs(TextField.class).getText()).isEqualTo("https://api.example.com/orders");

    replaceText(robot, field(robot, "#bp-headers", "header-value", "abc"), "edited-by-hand");
    robot.clickOn("#bp-headers-add");
    TextField newName = field(robot, "#bp-headers", "header-name", "");
    robot.clickOn(newName).write("X-Added");
    robot.clickOn(field(robot, "#bp-headers", "header-value", "")).write("1");
    robot.clickOn("#bp-body-pretty");
    assertThat(robot.lookup("#bp-body").queryAs(TextArea.class).getText())
        .isEqualTo("{\n  \"qty\": 1,\n  \"item\": \"tea\"\n}");
    replaceText(robot, robot.lookup("#bp-body").query(), "{\"qty\":12}");
    Screenshots.write(window.stage().getScene(), "breakpoint-editor.png");

    robot.clickOn("#bp-url").push(KeyCode.ENTER);
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(at.outcome()).as("Enter in a field does not resume").isNotDone();
    robot.push(KeyCode.CONTROL, KeyCode.ENTER); // Resume
    RequestOutcome out = at.outcome().get(10, TimeUnit.SECONDS);
    RequestDraft sent = ((RequestOutcome.Forward) out).request();
    assertThat(sent.headers()).isEqualTo(Headers.of("Host", "api.example.com", "Content-Type", "application/json",
        "X-Trace", "edited-by-hand", "X-Added", "1"));
    assertThat(sent.bodyText()).isEqualTo("{\"qty\":12}");
    assertThat(sent.url()).isEqualTo("https://api.example.com/orders");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> !window.stage().isShowing());
    assertThat(robot.lookup("#status-paused").queryAs(Hyperlink.class).isVisible()).isFalse();
  }

  @Test
  void anInvalidUrlIsShownInlineAndAnswerNowSendsTheComposedResponse(FxRobot robot) throws Exception {
    PausedFlows.AtRequest at = PausedFlows.atRequest(service, PausedFlows.post("http://shop.test/cart", "{}"));
    window();
    replaceText(robot, robot.lookup("#bp-url").query(), "shop.test/cart");
    robot.clickOn("#bp-resume");
    assertThat(robot.lookup("#bp-error").queryAs(Label.class).getText()).contains("http:// or https://");
    assertThat(at.outcome()).isNotDone();

    robot.clickOn("Answer");
    replaceText(robot, robot.lookup("#bp-answer-status").query(), "503");
    robot.clickOn("#bp-answer-body").write("maintenance");
    robot.clickOn("#bp-answer");
    ResponseDraft answer = ((RequestOutcome.Respond) at.outcome().get(10, TimeUnit.SECONDS)).response();
    assertThat(answer.status()).isEqualTo(503);
    assertThat(answer.reason()).isEqualTo("Service Unavailable");
    assertThat(answer.bodyText()).isEqualTo("maintenance");
  }

  @Test
  void manyPausesAreListedAndFlowsReleasedElsewhereLeaveTheWindow(FxRobot robot) throws Exception {
    List<PausedFlows.AtRequest> all = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      all.add(PausedFlows.atRequest(service, PausedFlows.post("http://many.test/item/" + i, "{\"n\":" + i + "}")));
    }
    PausedFlowsWindow window = window();
    @SuppressWarnings("unchecked")
    ListView<Object> list = robot.lookup("#paused-list").queryAs(ListView.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> list.getItems().size() == 40);
    assertThat(robot.lookup("#status-paused").queryAs(Hyperlink.class).getText()).isEqualTo("40 paused");
    assertThat(list.getSelectionModel().getSelectedIndex()).as("the oldest is selected").isZero();
    assertThat(robot.lookup("#bp-url").queryAs(TextField.class).getText()).isEqualTo("http://many.test/item/0");

    // an edit on the first, then another flow, then back: the edit is still there
    replaceText(robot, robot.lookup("#bp-url").query(), "http://many.test/edited");
    robot.interact(() -> list.getSelectionModel().clearAndSelect(5));
    assertThat(robot.lookup("#bp-url").queryAs(TextField.class).getText()).isEqualTo("http://many.test/item/5");
    robot.interact(() -> list.getSelectionModel().clearAndSelect(0));
    assertThat(robot.lookup("#bp-url").queryAs(TextField.class).getText()).isEqualTo("http://many.test/edited");

    // the selected flow is released elsewhere (a timeout, the control API): the editor moves on
    Thread other = new Thread(() -> all.get(0).paused().resume());
    other.start();
    other.join();
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> list.getItems().size() == 39);
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(robot.lookup("#bp-url").queryAs(TextField.class).getText()).isEqualTo("http://many.test/item/1");
    assertThat(((RequestOutcome.Forward) all.get(0).outcome().join()).request().url()).isEqualTo("http://many.test/item/0");

    robot.clickOn("#bp-abort");
    assertThat(all.get(1).outcome().get(10, TimeUnit.SECONDS)).isInstanceOf(RequestOutcome.Abort.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> list.getItems().size() == 38);

    service.pauseTimeout(java.time.Duration.ofSeconds(600));
    PausedFlows.AtRequest late = PausedFlows.atRequest(service, PausedFlows.post("http://many.test/late", "{}"));
    all.add(late);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> list.getItems().size() == 39);
    assertThat(robot.lookup("#paused-count").queryAs(Label.class).getText())
        .isEqualTo("39 paused, oldest first — each goes on unchanged after 600 s (see Settings)");
    robot.clickOn("#paused-resume-all");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> !window.stage().isShowing());
    for (PausedFlows.AtRequest a : all) {
      assertThat(a.outcome()).isDone();
    }
    assertThat(service.pausedFlows()).isEmpty();
  }
}
