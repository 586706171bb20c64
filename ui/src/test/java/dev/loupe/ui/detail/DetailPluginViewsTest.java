package dev.loupe.ui.detail;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.spi.ContentView;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plugin content views in the detail pane's body viewers, without a display: offered only for the
 * bodies they accept (a header alone is enough), rendered as text, tree or table, a throwing
 * plugin contained; and the flow's notes shown.
 */
@Timeout(30)
class DetailPluginViewsTest {
  @TempDir Path spill;

  /** Accepts messages with X-Shout; shows the body in capitals. */
  static final class Shout implements ContentView {
    @Override public String name() { return "Shout"; }
    @Override public boolean accepts(Headers h, byte[] b) { return h.contains("x-shout"); }

    @Override
    public View render(Headers h, byte[] b) {
      return new Text(new String(b, StandardCharsets.UTF_8).toUpperCase(Locale.ROOT) + "!" + h.get("x-shout"));
    }
  }

  static final class Shape implements ContentView {
    @Override public String name() { return "Shape"; }
    @Override public boolean accepts(Headers h, byte[] b) { return true; }

    @Override
    public View render(Headers h, byte[] b) {
      return h.contains("x-table") ? new Table(List.of("k", "v"), List.of(List.of("a", "1")))
          : new Tree(new Node("root", List.of(Node.leaf("leaf"))));
    }
  }

  static final class Broken implements ContentView {
    @Override public String name() { return "Broken"; }
    @Override public boolean accepts(Headers h, byte[] b) { return h.contains("x-broken"); }
    @Override public View render(Headers h, byte[] b) { throw new IllegalStateException("cannot"); }
  }

  static final class BadAccepts implements ContentView {
    @Override public String name() { return "BadAccepts"; }
    @Override public boolean accepts(Headers h, byte[] b) { throw new IllegalStateException("no"); }
    @Override public View render(Headers h, byte[] b) { return new Text("never"); }
  }

  RecordedFlow flow(long id, Headers responseHeaders, String body) {
    RecordedFlow f = new RecordedFlow(id, Instant.parse("2026-12-01T10:00:00Z"), new CapturePolicy(1 << 20, true, spill));
    f.request(new RequestHead("GET", "https", "api.example.com", 443, "/", "HTTP/1.1",
        Headers.of("Host", "api.example.com", "X-Shout", "req")));
    f.requestBody().complete();
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", responseHeaders));
    f.responseBody().append(ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)));
    f.responseBody().complete();
    return f;
  }

  DetailViewModel vm() {
    DetailViewModel vm = new DetailViewModel(Runnable::run, Runnable::run);
    vm.contentViews(() -> List.of(new Shout(), new Shape(), new Broken(), new BadAccepts()));
    return vm;
  }

  static List<String> labels(BodyViewModel b) {
    return b.choices().stream().map(ViewerOption::toString).toList();
  }

  @Test
  void offeredOnlyForBodiesTheyAcceptAndRenderedAsText() {
    DetailViewModel vm = vm();
    vm.show(flow(1, Headers.of("Content-Type", "text/plain", "X-Shout", "res"), "hello"));
    BodyViewModel body = vm.response().body();
    assertThat(labels(body)).containsExactly("Auto", "Text", "JSON", "Hex", "Image", "Form", "Multipart", "Shout",
        "Shape");
    assertThat(body.shownProperty().get()).isEqualTo(ViewerMode.TEXT);

    ViewerOption shout = body.choices().get(7);
    body.choose(shout);
    assertThat(body.shownProperty().get()).isEqualTo(ViewerMode.PLUGIN);
    assertThat(body.textProperty().get()).isEqualTo("HELLO!res");
    assertThat(body.pluginResultProperty().get()).isInstanceOf(ContentView.Text.class);
    assertThat(body.noteProperty().get()).startsWith("shown by the plugin view Shout");
    assertThat(body.choice()).isEqualTo(shout);

    // Back to a built-in viewer.
    body.choose(body.choices().get(3));
    assertThat(body.shownProperty().get()).isEqualTo(ViewerMode.HEX);
    assertThat(body.pluginViewProperty().get()).isNull();
    assertThat(body.pluginResultProperty().get()).isNull();

    // A request without a body but with the header the view wants: offered there too.
    assertThat(labels(vm.request().body())).contains("Shout");
  }

  @Test
  void treesTablesAndFailures() {
    DetailViewModel vm = vm();
    vm.show(flow(1, Headers.of("X-Broken", "1"), "{}"));
    BodyViewModel body = vm.response().body();
    assertThat(labels(body)).endsWith("Shape", "Broken").doesNotContain("BadAccepts", "Shout");
    body.choose(body.choices().stream().filter(o -> o.toString().equals("Shape")).findFirst().orElseThrow());
    assertThat(body.pluginResultProperty().get()).isEqualTo(
        new ContentView.Tree(new ContentView.Node("root", List.of(ContentView.Node.leaf("leaf")))));

    body.choose(body.choices().stream().filter(o -> o.toString().equals("Broken")).findFirst().orElseThrow());
    assertThat(body.shownProperty().get()).isEqualTo(ViewerMode.TEXT);
    assertThat(body.textProperty().get()).isEqualTo("{}");
    assertThat(body.noteProperty().get()).startsWith("the Broken view failed: IllegalStateException: cannot");

    // Another flow resets the choice.
    vm.show(flow(2, Headers.of("X-Table", "1"), "x"));
    assertThat(body.pluginViewProperty().get()).isNull();
    body.choose(body.choices().stream().filter(o -> o.toString().equals("Shape")).findFirst().orElseThrow());
    assertThat(body.pluginResultProperty().get()).isEqualTo(
        new ContentView.Table(List.of("k", "v"), List.of(List.of("a", "1"))));
  }

  @Test
  void notesOfTheFlowAreShown() {
    DetailViewModel vm = vm();
    RecordedFlow f = flow(1, Headers.EMPTY, "x");
    vm.show(f);
    assertThat(vm.notesProperty().get()).isEmpty();
    f.note("plugin thrower, hook request: IllegalStateException (boom)");
    f.note("plugin hanger, hook request: TimeoutException (did not return within 2000 ms)");
    vm.show(f);
    assertThat(vm.notesProperty().get()).isEqualTo("plugin thrower, hook request: IllegalStateException (boom)\n"
        + "plugin hanger, hook request: TimeoutException (did not return within 2000 ms)");
    assertThat(vm.connectionRows()).extracting(InfoRow::label).contains("Note");
  }
}
