package dev.loupe.ui.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.intercept.Breakpoint;
import dev.loupe.engine.api.intercept.RewriteOp;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.api.intercept.RuleAction;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rule and breakpoint editors' models: validation messages and the rules they build. */
class RuleEditorViewModelTest {
  @Test
  void filterErrorsReadLikeTheFilterBarAndBlockSave() {
    RuleEditorViewModel vm = new RuleEditorViewModel(RuleEditorViewModel.Type.BLOCK);
    assertThat(vm.validProperty().get()).isTrue();
    vm.filterProperty().set("(~d example");
    assertThat(vm.filterErrorProperty().get()).contains("')'");
    assertThat(vm.validProperty().get()).isFalse();
    assertThat(vm.build()).isNull();
    vm.filterProperty().set("~d example & ~m POST");
    assertThat(vm.filterErrorProperty().get()).isEmpty();
    vm.blockStatusProperty().set("99");
    assertThat(vm.errorProperty().get()).isEqualTo("Block status must be 200..599, got 99");
    vm.blockStatusProperty().set("x");
    assertThat(vm.errorProperty().get()).isEqualTo("Status must be a whole number, got \"x\"");
    vm.blockModeProperty().set(RuleAction.Block.Mode.RESET);
    assertThat(vm.errorProperty().get()).as("no status to check when resetting").isEmpty();
    Rule r = vm.build();
    assertThat(r.action()).isEqualTo(new RuleAction.Block(RuleAction.Block.Mode.RESET, 0));
    assertThat(r.name()).isEqualTo("Block: reset");
    assertThat(r.filter()).isEqualTo("~d example & ~m POST");
  }

  @Test
  void mapLocalAndMapRemoteNeedTheirTarget() {
    RuleEditorViewModel local = new RuleEditorViewModel(RuleEditorViewModel.Type.MAP_LOCAL);
    assertThat(local.errorProperty().get()).isEqualTo("Map Local needs a file or directory");
    local.localPathProperty().set("/srv/mock");
    local.stripPrefixProperty().set("/static");
    local.nameProperty().set("mock api");
    Rule built = local.build();
    assertThat(built).isEqualTo(new Rule(built.id(), "mock api", true, "", new RuleAction.MapLocal("/srv/mock", "/static")));

    RuleEditorViewModel remote = new RuleEditorViewModel(RuleEditorViewModel.Type.MAP_REMOTE);
    remote.remoteUrlProperty().set("staging:8443/v2");
    assertThat(remote.errorProperty().get()).contains("http:// or https://");
    remote.remoteUrlProperty().set("https://staging:8443/v2");
    remote.keepPathProperty().set(false);
    assertThat(remote.build().action()).isEqualTo(new RuleAction.MapRemote("https://staging:8443/v2", false));
  }

  @Test
  void rewriteRowsAreCheckedOneByOne() {
    RuleEditorViewModel vm = new RuleEditorViewModel(RuleEditorViewModel.Type.REWRITE);
    assertThat(vm.ops()).hasSize(1);
    assertThat(vm.errorProperty().get()).isEqualTo("Row 1: invalid header name: \"\"");
    vm.ops().get(0).matchProperty().set("X-Debug");
    vm.ops().get(0).valueProperty().set("1");
    RuleEditorViewModel.OpRow row = vm.addOp();
    row.kindProperty().set(RewriteOp.Kind.REPLACE_BODY);
    row.sideProperty().set(RewriteOp.Side.RESPONSE);
    row.matchProperty().set("(unclosed");
    assertThat(vm.errorProperty().get()).startsWith("Row 2: invalid regex \"(unclosed\"");
    row.matchProperty().set("foo(\\d+)");
    row.valueProperty().set("bar$1");
    RuleEditorViewModel.OpRow status = vm.addOp();
    status.kindProperty().set(RewriteOp.Kind.SET_STATUS);
    status.valueProperty().set("503");
    assertThat(vm.errorProperty().get()).isEqualTo("Row 3: SET_STATUS applies to the response only");
    status.sideProperty().set(RewriteOp.Side.RESPONSE);
    assertThat(vm.validProperty().get()).isTrue();
    assertThat(((RuleAction.Rewrite) vm.build().action()).ops()).containsExactly(
        new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.SET_HEADER, "X-Debug", "1"),
        new RewriteOp(RewriteOp.Side.RESPONSE, RewriteOp.Kind.REPLACE_BODY, "foo(\\d+)", "bar$1"),
        new RewriteOp(RewriteOp.Side.RESPONSE, RewriteOp.Kind.SET_STATUS, "", "503"));
    vm.ops().clear();
    assertThat(vm.errorProperty().get()).isEqualTo("Rewrite needs at least one change");
  }

  @Test
  void throttleRatesHaveUnitsBothWays() {
    RuleEditorViewModel vm = new RuleEditorViewModel(RuleEditorViewModel.Type.THROTTLE);
    assertThat(vm.rateProperty().get()).isEqualTo("256");
    assertThat(vm.rateUnitProperty().get()).isEqualTo(RuleEditorViewModel.RateUnit.KIB);
    vm.latencyProperty().set("150");
    Rule r = vm.build();
    assertThat(r.action()).isEqualTo(new RuleAction.Throttle(256 * 1024, 150));
    assertThat(r.name()).isEqualTo("Throttle 256 KiB/s + 150 ms");

    vm.rateProperty().set("1.5");
    vm.rateUnitProperty().set(RuleEditorViewModel.RateUnit.MIB);
    assertThat(((RuleAction.Throttle) vm.build().action()).bytesPerSecond()).isEqualTo(1572864);
    vm.rateProperty().set("fast");
    assertThat(vm.errorProperty().get()).isEqualTo("Rate must be a number, got \"fast\"");
    vm.rateProperty().set("");
    vm.latencyProperty().set("");
    assertThat(vm.errorProperty().get()).isEqualTo("Throttle needs a rate or a latency");

    for (long bps : new long[] {1572864, 256 * 1024, 1000, 3 << 20}) {
      RuleEditorViewModel again = new RuleEditorViewModel(new Rule("t", "t", true, "", new RuleAction.Throttle(bps, 0)));
      assertThat(((RuleAction.Throttle) again.build().action()).bytesPerSecond()).isEqualTo(bps);
    }
    RuleEditorViewModel edit = new RuleEditorViewModel(new Rule("t", "t", true, "", new RuleAction.Throttle(1572864, 20)));
    assertThat(edit.rateProperty().get() + " " + edit.rateUnitProperty().get()).isEqualTo("1.5 MiB/s");
    assertThat(edit.latencyProperty().get()).isEqualTo("20");
    assertThat(edit.build().id()).as("editing keeps the id").isEqualTo("t");
  }

  @Test
  void editingARuleLoadsEveryField() {
    Rule rule = new Rule("r1", "debug header", false, "~d api", new RuleAction.Rewrite(List.of(
        new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.ADD_HEADER, "X-A", "1"))));
    RuleEditorViewModel vm = new RuleEditorViewModel(rule);
    assertThat(vm.editing()).isTrue();
    assertThat(vm.type()).isEqualTo(RuleEditorViewModel.Type.REWRITE);
    assertThat(vm.build()).isEqualTo(rule);
  }

  @Test
  void breakpointEntriesNeedAPhaseAndAFilterThatParses() {
    BreakpointEntryViewModel vm = new BreakpointEntryViewModel(null);
    assertThat(vm.validProperty().get()).isTrue();
    vm.requestProperty().set(false);
    assertThat(vm.errorProperty().get()).isEqualTo("Pause requests, responses or both");
    vm.responseProperty().set(true);
    vm.filterProperty().set("~x");
    assertThat(vm.filterErrorProperty().get()).isNotEmpty();
    vm.filterProperty().set(" ~m POST ");
    Breakpoint b = vm.build();
    assertThat(b.filter()).isEqualTo("~m POST");
    assertThat(b.request()).isFalse();
    assertThat(b.response()).isTrue();
    assertThat(new BreakpointEntryViewModel(b).build()).isEqualTo(b);
  }
}
