package dev.loupe.ui.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.internal.intercept.RequestOutcome;
import dev.loupe.engine.internal.intercept.ResponseOutcome;
import dev.loupe.ui.common.HeaderEntry;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The paused-flow editor's model on real paused flows (a real InterceptService, no proxy, no display). */
class BreakpointEditorViewModelTest {
  private final InterceptService service = InterceptService.create();

  @AfterEach
  void close() {
    service.close();
  }

  @Test
  void resumeSendsTheEditedMethodUrlHeadersAndBody() throws Exception {
    PausedFlows.AtRequest at = PausedFlows.atRequest(service, PausedFlows.post("https://api.example.com/users", "{\"a\":1}"));
    BreakpointEditorViewModel vm = new BreakpointEditorViewModel(at.paused());
    assertThat(vm.requestPhase()).isTrue();
    assertThat(vm.headers()).extracting(HeaderEntry::toString)
        .containsExactly("Host: api.example.com", "Content-Type: application/json", "X-Trace: abc");
    assertThat(vm.body().modeProperty().get()).isEqualTo(BodyEditorModel.Mode.JSON);
    assertThat(vm.edited()).isFalse();

    vm.methodProperty().set("PUT");
    vm.urlProperty().set(" https://api.example.com/users/7?x=1 ");
    vm.headers().get(2).valueProperty().set("edited");
    vm.headers().add(new HeaderEntry("X-New", "yes"));
    vm.headers().add(new HeaderEntry("", "")); // a blank row is skipped
    vm.body().textProperty().set("{\"a\":2}");
    assertThat(vm.edited()).isTrue();
    assertThat(vm.resume()).isTrue();

    RequestOutcome out = at.outcome().get(5, TimeUnit.SECONDS);
    assertThat(out).isInstanceOf(RequestOutcome.Forward.class);
    var sent = ((RequestOutcome.Forward) out).request();
    assertThat(sent.method()).isEqualTo("PUT");
    assertThat(sent.url()).isEqualTo("https://api.example.com/users/7?x=1");
    assertThat(sent.headers()).isEqualTo(Headers.of("Host", "api.example.com", "Content-Type", "application/json",
        "X-Trace", "edited", "X-New", "yes"));
    assertThat(sent.bodyText()).isEqualTo("{\"a\":2}");
    assertThat(vm.releasedProperty().get()).isTrue();
    assertThat(at.paused().flow().modifiedBy()).containsExactly("breakpoint: request edited");
    assertThat(service.pausedFlows()).isEmpty();
  }

  @Test
  void anInvalidUrlOrHeaderIsShownAndTheFlowStaysPaused() {
    PausedFlows.AtRequest at = PausedFlows.atRequest(service, PausedFlows.post("http://a.test/", "x"));
    BreakpointEditorViewModel vm = new BreakpointEditorViewModel(at.paused());
    vm.urlProperty().set("ftp://a.test/");
    assertThat(vm.resume()).isFalse();
    assertThat(vm.errorProperty().get()).contains("http:// or https://");
    vm.urlProperty().set("http://a.test/");
    vm.headers().add(new HeaderEntry("Bad Name", "v"));
    assertThat(vm.resume()).isFalse();
    assertThat(vm.errorProperty().get()).isEqualTo("invalid header name \"Bad Name\" (row 4)");
    vm.headers().remove(3);
    vm.body().mode(BodyEditorModel.Mode.HEX);
    vm.body().textProperty().set("78 7");
    assertThat(vm.resume()).isFalse();
    assertThat(vm.errorProperty().get()).startsWith("Odd number of hex digits");
    assertThat(at.outcome()).isNotDone();
    assertThat(vm.releasedProperty().get()).isFalse();
    assertThat(service.pausedFlows()).containsExactly(at.paused());

    vm.body().textProperty().set("79");
    assertThat(vm.resume()).isTrue();
    assertThat(vm.errorProperty().get()).isEmpty();
    assertThat(((RequestOutcome.Forward) at.outcome().join()).request().bodyText()).isEqualTo("y");
  }

  @Test
  void answerNowRespondsWithTheComposedResponseAndResumeUnchangedIgnoresEdits() {
    PausedFlows.AtRequest at = PausedFlows.atRequest(service, PausedFlows.post("http://a.test/x", "x"));
    BreakpointEditorViewModel vm = new BreakpointEditorViewModel(at.paused());
    vm.answerStatusProperty().set("418");
    vm.answerHeaders().add(new HeaderEntry("X-Answered", "by loupe"));
    vm.answerBody().textProperty().set("short and stout");
    assertThat(vm.answer()).isTrue();
    ResponseDraft answer = ((RequestOutcome.Respond) at.outcome().join()).response();
    assertThat(answer.status()).isEqualTo(418);
    assertThat(answer.reason()).isEqualTo("I'm a teapot");
    assertThat(answer.headers().get("x-answered")).isEqualTo("by loupe");
    assertThat(answer.headers().get("content-type")).isEqualTo("text/plain; charset=utf-8");
    assertThat(answer.bodyText()).isEqualTo("short and stout");

    PausedFlows.AtRequest other = PausedFlows.atRequest(service, PausedFlows.post("http://a.test/y", "y"));
    BreakpointEditorViewModel vm2 = new BreakpointEditorViewModel(other.paused());
    vm2.urlProperty().set("http://elsewhere.test/");
    vm2.body().textProperty().set("changed");
    assertThat(vm2.resumeUnchanged()).isTrue();
    assertThat(((RequestOutcome.Forward) other.outcome().join()).request()).isEqualTo(other.paused().request());

    PausedFlows.AtRequest third = PausedFlows.atRequest(service, PausedFlows.post("http://a.test/z", "z"));
    BreakpointEditorViewModel vm3 = new BreakpointEditorViewModel(third.paused());
    vm3.answerStatusProperty().set("99");
    assertThat(vm3.answer()).isFalse();
    assertThat(vm3.errorProperty().get()).isEqualTo("Status must be 100..999, got 99");
    assertThat(vm3.abort()).isTrue();
    assertThat(third.outcome().join()).isInstanceOf(RequestOutcome.Abort.class);
  }

  @Test
  void aResponseIsEditedInItsResponsePhase() {
    ResponseDraft res = new ResponseDraft(200, "OK", "HTTP/1.1", Headers.of("Content-Type", "text/plain"),
        "hello".getBytes(StandardCharsets.UTF_8));
    PausedFlows.AtResponse at = PausedFlows.atResponse(service, PausedFlows.post("http://a.test/r", "q"), res);
    BreakpointEditorViewModel vm = new BreakpointEditorViewModel(at.paused());
    assertThat(vm.requestPhase()).isFalse();
    assertThat(vm.statusProperty().get()).isEqualTo("200");
    assertThat(vm.body().textProperty().get()).isEqualTo("hello");
    assertThat(vm.answer()).isFalse();
    assertThat(vm.errorProperty().get()).contains("Resume");

    vm.statusProperty().set("404");
    vm.body().textProperty().set("gone");
    assertThat(vm.resume()).isTrue();
    ResponseDraft sent = ((ResponseOutcome.Deliver) at.outcome().join()).response();
    assertThat(sent.status()).isEqualTo(404);
    assertThat(sent.reason()).as("the old reason does not follow a new status").isEqualTo("Not Found");
    assertThat(sent.bodyText()).isEqualTo("gone");
    assertThat(at.paused().flow().modifiedBy()).containsExactly("breakpoint: response edited");
  }

  @Test
  void aFlowReleasedElsewhereCannotBeReleasedAgain() {
    PausedFlows.AtRequest at = PausedFlows.atRequest(service, PausedFlows.post("http://a.test/", "x"));
    BreakpointEditorViewModel vm = new BreakpointEditorViewModel(at.paused());
    assertThat(service.releaseAll()).isEqualTo(1);
    vm.body().textProperty().set("too late");
    assertThat(vm.resume()).isFalse();
    assertThat(vm.errorProperty().get()).contains("already released");
    assertThat(((RequestOutcome.Forward) at.outcome().join()).request().bodyText()).isEqualTo("x");
  }
}
