package dev.loupe.ui.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.intercept.Breakpoint;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.api.intercept.RuleAction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rules window's list model over a real InterceptService. */
class RulesListModelTest {
  @TempDir Path dir;
  private final InterceptService service = InterceptService.create();
  private final List<Runnable> posted = new ArrayList<>();
  private final InterceptListModel<Rule> rules = new InterceptListModel<>(service.rules(), posted::add, "rule");

  @AfterEach
  void close() {
    rules.close();
    service.close();
  }

  private static Rule block(String name, int status) {
    return new Rule(null, name, true, "~d " + name, new RuleAction.Block(RuleAction.Block.Mode.RESPOND, status));
  }

  private List<String> names() {
    return rules.entries().stream().map(Rule::name).toList();
  }

  @Test
  void commandsChangeTheServiceListInOrder() {
    Rule a = block("a", 403);
    Rule b = block("b", 404);
    Rule c = block("c", 410);
    assertThat(rules.add(a)).isNull();
    assertThat(rules.add(b)).isNull();
    assertThat(rules.add(c)).isNull();
    assertThat(names()).containsExactly("a", "b", "c");
    assertThat(rules.moveUp(c.id())).isNull();
    assertThat(names()).containsExactly("a", "c", "b");
    assertThat(rules.moveUp(a.id())).as("already first").isNull();
    assertThat(rules.moveDown(a.id())).isNull();
    assertThat(names()).containsExactly("c", "a", "b");
    assertThat(service.rules().entries()).extracting(Rule::name).containsExactly("c", "a", "b");

    assertThat(rules.enable(a.id(), false)).isNull();
    assertThat(service.rules().get(a.id()).enabled()).isFalse();
    assertThat(rules.duplicate(b.id(), r -> new Rule(null, r.name() + " (copy)", r.enabled(), r.filter(), r.action())))
        .isNull();
    assertThat(names()).containsExactly("c", "a", "b", "b (copy)");
    assertThat(rules.remove(c.id())).isNull();
    assertThat(names()).containsExactly("a", "b", "b (copy)");

    String problem = rules.add(new Rule(null, "bad", true, "(~d", new RuleAction.Throttle(0, 10)));
    assertThat(problem).startsWith("\"bad\": bad filter:");
    assertThat(rules.messageProperty().get()).isEqualTo(problem);
    assertThat(names()).containsExactly("a", "b", "b (copy)");
  }

  @Test
  void exportThenImportRoundTripsAndABadFileChangesNothing() throws Exception {
    rules.add(block("a", 403));
    rules.add(new Rule(null, "slow", false, "", new RuleAction.Throttle(256 * 1024, 100)));
    List<Rule> before = rules.entries();
    Path file = dir.resolve("rules.json");
    assertThat(rules.exportTo(file)).isNull();
    assertThat(rules.messageProperty().get()).isEqualTo("Exported 2 rules to rules.json");

    service.rules().clear();
    posted.forEach(Runnable::run); // the service's change reaches the model on the UI thread
    assertThat(rules.entries()).isEmpty();
    assertThat(rules.importFrom(file, true)).isNull();
    assertThat(rules.entries()).isEqualTo(before);
    assertThat(rules.importFrom(file, false)).isNull();
    assertThat(rules.messageProperty().get()).isEqualTo("Imported 2 rules (appended)");
    assertThat(names()).containsExactly("a", "slow", "a", "slow");
    assertThat(rules.entries().stream().map(Rule::id).distinct()).as("clashing ids renewed").hasSize(4);

    Path bad = dir.resolve("bad.json");
    Files.writeString(bad, "[{\"name\":\"x\",\"filter\":\"\",\"action\":{\"type\":\"block\",\"mode\":\"RESPOND\",\"status\":42}}]");
    assertThat(rules.importFrom(bad, true)).isEqualTo("bad.json: \"x\": Block status must be 200..599, got 42");
    Files.writeString(bad, "{not json");
    assertThat(rules.importFrom(bad, true)).startsWith("bad.json: not a valid rule list: ");
    assertThat(names()).containsExactly("a", "slow", "a", "slow");
  }

  @Test
  void theListSwitchFollowsTheServiceBothWays() {
    InterceptListModel<Breakpoint> bps = new InterceptListModel<>(service.breakpoints(), posted::add, "breakpoint");
    assertThat(bps.activeProperty().get()).isTrue();
    bps.activeProperty().set(false);
    assertThat(service.breakpoints().active()).isFalse();
    service.breakpoints().active(true); // e.g. the control API
    service.breakpoints().add(new Breakpoint(null, "~m POST", true, false, true));
    assertThat(bps.entries()).isEmpty();
    posted.forEach(Runnable::run);
    assertThat(bps.activeProperty().get()).isTrue();
    assertThat(bps.entries()).extracting(Breakpoint::filter).containsExactly("~m POST");
    bps.close();
  }
}
