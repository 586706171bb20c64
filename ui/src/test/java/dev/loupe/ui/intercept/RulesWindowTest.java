package dev.loupe.ui.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.intercept.Breakpoint;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.api.intercept.RuleAction;
import dev.loupe.ui.settings.Settings;
import dev.loupe.ui.shell.Screenshots;
import dev.loupe.ui.shell.Themes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javafx.application.Platform;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.DialogPane;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableView;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.StackPane;
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

/** The rules window on headless Monocle over a real InterceptService: the list as a user drives it. */
@ExtendWith(ApplicationExtension.class)
@Timeout(120)
class RulesWindowTest {
  @TempDir Path dir;
  private final InterceptService service = InterceptService.create();
  private InterceptListModel<Rule> rules;
  private InterceptListModel<Breakpoint> breakpoints;
  private RulesWindow window;
  private final AtomicReference<Path> chosen = new AtomicReference<>();

  @Start
  void start(Stage stage) {
    Scene scene = new Scene(new StackPane(new Label("main")), 200, 100);
    Themes.apply(scene, Settings.Theme.LIGHT);
    stage.setScene(scene);
    stage.show();
    rules = new InterceptListModel<>(service.rules(), Platform::runLater, "rule");
    breakpoints = new InterceptListModel<>(service.breakpoints(), Platform::runLater, "breakpoint");
    window = new RulesWindow(stage, rules, breakpoints);
    window.files(new RulesWindow.Files() {
      @Override
      public Path open(String title) {
        return chosen.get();
      }

      @Override
      public Path save(String title, String suggestedName) {
        assertThat(suggestedName).isIn("loupe-rules.json", "loupe-breakpoints.json");
        return chosen.get();
      }
    });
    window.show();
  }

  @AfterEach
  void stop() throws Exception {
    WaitForAsyncUtils.asyncFx(() -> {
      rules.close();
      breakpoints.close();
      window.stage().hide();
    }).get(10, TimeUnit.SECONDS);
    service.close();
  }

  private static void replaceText(FxRobot robot, String query, String text) {
    robot.clickOn(query);
    robot.push(KeyCode.CONTROL, KeyCode.A);
    robot.write(text);
  }

  private List<String> names() {
    return service.rules().entries().stream().map(Rule::name).toList();
  }

  /** The node {@code query} finds in table row {@code row} (a cell's editor). */
  private static Node inRow(FxRobot robot, String query, int row) {
    return robot.lookup(query).queryAll().stream()
        .filter(n -> n.getParent() instanceof TableCell<?, ?> cell && cell.getIndex() == row && cell.getItem() != null)
        .findFirst().orElseThrow(() -> new AssertionError("no " + query + " in row " + row));
  }

  /** The check box of style class {@code styleClass} in row {@code row} of {@code table}. */
  private static CheckBox checkBox(FxRobot robot, String table, String styleClass, int row) {
    return robot.lookup(table + " ." + styleClass).queryAllAs(CheckBox.class).stream()
        .filter(c -> c.getParent() instanceof TableCell<?, ?> cell && cell.getIndex() == row && c.isVisible()
            && cell.getItem() != null)
        .findFirst().orElseThrow(() -> new AssertionError("no check box in row " + row));
  }

  @Test
  void addReorderDisableExportAndImportRules(FxRobot robot) throws Exception {
    // a Block rule: the filter's syntax error is shown inline and blocks Save until fixed
    robot.clickOn("#rules-add").clickOn("Block…");
    robot.clickOn("#rule-name").write("no ads");
    robot.clickOn("#rule-filter").write("(~d ads");
    assertThat(robot.lookup("#rule-filter-error").queryAs(Label.class).getText()).contains("')'");
    assertThat(robot.lookup("#rule-save").queryAs(Button.class).isDisabled()).isTrue();
    robot.write(")");
    assertThat(robot.lookup("#rule-filter-error").queryAs(Label.class).getText()).isEmpty();
    replaceText(robot, "#rule-block-status", "45");
    assertThat(robot.lookup("#rule-error").queryAs(Label.class).getText()).isEqualTo("Block status must be 200..599, got 45");
    robot.write("1");
    robot.clickOn("#rule-save");
    assertThat(service.rules().entries()).singleElement().satisfies(r -> {
      assertThat(r.filter()).isEqualTo("(~d ads)");
      assertThat(r.action()).isEqualTo(new RuleAction.Block(RuleAction.Block.Mode.RESPOND, 451));
    });

    // a Throttle rule
    robot.clickOn("#rules-add").clickOn("Throttle…");
    robot.clickOn("#rule-name").write("slow api");
    robot.clickOn("#rule-filter").write("~d api");
    replaceText(robot, "#rule-rate", "64");
    robot.clickOn("#rule-latency").write("300");
    robot.clickOn("#rule-save");
    assertThat(names()).containsExactly("no ads", "slow api");
    assertThat(service.rules().entries().get(1).action()).isEqualTo(new RuleAction.Throttle(64 * 1024, 300));

    // reorder: the new rule is selected; move it up
    @SuppressWarnings("unchecked")
    TableView<Rule> table = robot.lookup("#rules-table").queryAs(TableView.class);
    assertThat(table.getSelectionModel().getSelectedItem().name()).isEqualTo("slow api");
    robot.clickOn("#rules-up");
    assertThat(names()).containsExactly("slow api", "no ads");
    assertThat(table.getSelectionModel().getSelectedItem().name()).as("the moved rule stays selected").isEqualTo("slow api");

    // disable the second by its check box; the selection stays
    robot.clickOn(checkBox(robot, "#rules-table", "entry-enabled", 1));
    assertThat(service.rules().entries().get(1).enabled()).isFalse();
    assertThat(table.getSelectionModel().getSelectedItem().name()).isEqualTo("slow api");

    // edit: double click opens the editor with the rule's fields
    robot.doubleClickOn("no ads");
    replaceText(robot, "#rule-name", "no ads at all");
    robot.clickOn("#rule-save");
    assertThat(names()).containsExactly("slow api", "no ads at all");

    // duplicate
    robot.interact(() -> table.getSelectionModel().clearAndSelect(0));
    robot.clickOn("#rules-duplicate");
    assertThat(names()).containsExactly("slow api", "slow api (copy)", "no ads at all");
    robot.clickOn("#rules-remove");
    assertThat(names()).containsExactly("slow api", "no ads at all");

    Screenshots.write(window.stage().getScene(), "rules-window.png");

    // export, clear, import (replace): the same list back
    List<Rule> before = service.rules().entries();
    Path file = dir.resolve("exported.json");
    chosen.set(file);
    robot.clickOn("#rules-export");
    assertThat(Files.readString(file)).contains("\"type\" : \"throttle\"");
    service.rules().clear();
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, table.getItems()::isEmpty);
    robot.clickOn("#rules-import").clickOn("Replace the list…");
    assertThat(service.rules().entries()).isEqualTo(before);
    assertThat(table.getItems()).isEqualTo(before);
    assertThat(robot.lookup("#rules-message").queryAs(Label.class).getText()).isEqualTo("Imported 2 rules (replaced the list)");
    assertThat(service.rules().entries().get(1).enabled()).isFalse();

    // an invalid file: an error dialog names the problem and nothing changes
    Path bad = dir.resolve("bad.json");
    Files.writeString(bad, "[{\"name\":\"broken\",\"filter\":\"~q ~x\",\"action\":{\"type\":\"block\"}}]");
    chosen.set(bad);
    robot.clickOn("#rules-import").clickOn("Append to the list…");
    DialogPane error = robot.lookup("#intercept-error").queryAs(DialogPane.class);
    assertThat(error.getHeaderText()).isEqualTo("Could not import the rules; nothing was changed");
    assertThat(error.getContentText()).startsWith("bad.json: \"broken\": bad filter:");
    robot.clickOn(error.lookupButton(javafx.scene.control.ButtonType.OK));
    assertThat(service.rules().entries()).isEqualTo(before);

    // the list's switch
    robot.clickOn("#rules-active");
    assertThat(service.rules().active()).isFalse();
  }

  @Test
  void aRewriteRuleIsBuiltRowByRowInItsTable(FxRobot robot) {
    robot.clickOn("#rules-add").clickOn("Rewrite…");
    robot.clickOn("#rule-filter").write("~d api.shop.test");
    assertThat(robot.lookup("#rule-error").queryAs(Label.class).getText()).isEqualTo("Row 1: invalid header name: \"\"");
    robot.clickOn(robot.lookup("#rule-ops .op-match").queryAs(javafx.scene.control.TextField.class)).write("X-Debug");
    robot.clickOn(robot.lookup("#rule-ops .op-value").queryAs(javafx.scene.control.TextField.class)).write("on");
    robot.clickOn("#rule-ops-add");
    robot.clickOn(inRow(robot, "#rule-ops .op-kind", 1)).clickOn("Replace in body");
    // The popup's cell, not any node reading "Response" (the breakpoints tab has such labels too).
    robot.clickOn(inRow(robot, "#rule-ops .op-side", 1));
    robot.clickOn(robot.lookup(".combo-box-popup .list-cell")
        .<javafx.scene.control.ListCell<?>>match(c -> "Response".equals(c.getText())).<javafx.scene.Node>query());
    javafx.scene.control.TextField match = robot.lookup("#rule-ops .op-match").queryAllAs(javafx.scene.control.TextField.class)
        .stream().filter(f -> f.getText().isEmpty()).findFirst().orElseThrow();
    robot.clickOn(match).write("\"debug\":false");
    robot.push(KeyCode.TAB).write("\"debug\":true");
    robot.clickOn("#rule-save");
    assertThat(service.rules().entries()).singleElement().satisfies(r -> assertThat(r.action()).isEqualTo(
        new RuleAction.Rewrite(List.of(
            new dev.loupe.engine.api.intercept.RewriteOp(dev.loupe.engine.api.intercept.RewriteOp.Side.REQUEST,
                dev.loupe.engine.api.intercept.RewriteOp.Kind.SET_HEADER, "X-Debug", "on"),
            new dev.loupe.engine.api.intercept.RewriteOp(dev.loupe.engine.api.intercept.RewriteOp.Side.RESPONSE,
                dev.loupe.engine.api.intercept.RewriteOp.Kind.REPLACE_BODY, "\"debug\":false", "\"debug\":true")))));
  }

  @Test
  void rulesAreDraggedIntoPlace(FxRobot robot) {
    for (String n : List.of("first", "second", "third")) {
      service.rules().add(new Rule(null, n, true, "", new RuleAction.Block(RuleAction.Block.Mode.CLOSE, 0)));
    }
    WaitForAsyncUtils.waitForFxEvents();
    robot.drag("third").dropTo("first");
    assertThat(names()).containsExactly("third", "first", "second");
  }

  @Test
  void breakpointsAreAddedAndSwitchedInTheirTab(FxRobot robot) throws Exception {
    robot.interact(window::showBreakpoints);
    robot.clickOn("#bps-add");
    robot.clickOn("#bp-entry-filter").write("~m POST & ~x");
    assertThat(robot.lookup("#bp-entry-filter-error").queryAs(Label.class).getText()).isNotEmpty();
    robot.push(KeyCode.BACK_SPACE).push(KeyCode.BACK_SPACE).push(KeyCode.BACK_SPACE).push(KeyCode.BACK_SPACE)
        .push(KeyCode.BACK_SPACE);
    assertThat(robot.lookup("#bp-entry-filter-error").queryAs(Label.class).getText()).isEmpty();
    robot.clickOn("#bp-entry-response");
    robot.clickOn("#bp-entry-save");
    assertThat(service.breakpoints().entries()).singleElement().satisfies(b -> {
      assertThat(b.filter()).isEqualTo("~m POST");
      assertThat(b.request()).isTrue();
      assertThat(b.response()).isTrue();
    });
    robot.clickOn(checkBox(robot, "#bps-table", "bp-request", 0));
    assertThat(service.breakpoints().entries().get(0).request()).isFalse();
    robot.clickOn(checkBox(robot, "#bps-table", "bp-response", 0));
    assertThat(service.breakpoints().entries().get(0).response()).as("a breakpoint must pause something").isTrue();
    assertThat(robot.lookup("#bps-message").queryAs(Label.class).getText())
        .contains("a breakpoint pauses requests, responses or both");
    assertThat(checkBox(robot, "#bps-table", "bp-response", 0).isSelected()).as("the box shows the list again").isTrue();
    robot.clickOn("#bps-active");
    assertThat(service.breakpoints().active()).isFalse();
  }
}
