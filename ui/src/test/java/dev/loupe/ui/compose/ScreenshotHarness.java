package dev.loupe.ui.compose;

import static org.awaitility.Awaitility.await;

import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.api.intercept.RewriteOp;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.api.intercept.RuleAction;
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
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import javafx.stage.Stage;

/**
 * Not a test: a harness that opens the real windows on a real proxy and writes screenshots, for
 * running under a real display (e.g. {@code xvfb-run}, GTK glass) rather than headless Monocle.
 * Arguments: the output directory. Writes {@code composer.png}, {@code diff-window.png} and
 * {@code detail-modified.png} (scene snapshots), and {@code xvfb-composer.png} (the whole X screen,
 * via ImageMagick's {@code import}, when available).
 */
public final class ScreenshotHarness {
  private ScreenshotHarness() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "target/xvfb-screenshots");
    Files.createDirectories(out);
    Path confdir = Files.createTempDirectory("loupe-harness");
    try (ProxyFixture proxy = ProxyFixture.start(); TestOrigin origin = TestOrigin.h2AndH1()) {
      proxy.intercept().rules().add(new Rule(null, "debug header + rewritten answer", true, "~m POST",
          new RuleAction.Rewrite(List.of(
              new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.SET_HEADER, "X-Debug", "1"),
              new RewriteOp(RewriteOp.Side.RESPONSE, RewriteOp.Kind.SET_HEADER, "Cache-Control", "no-store"),
              new RewriteOp(RewriteOp.Side.RESPONSE, RewriteOp.Kind.REPLACE_BODY, " (\\d+)$", " $1 bytes (rewritten)")))));
      HttpClient client = proxy.clientBuilder().version(HttpClient.Version.HTTP_2).build();
      for (String q : new String[] {"page=1", "page=2"}) {
        client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/headers?" + q))
            .header("Accept", q.endsWith("1") ? "application/json" : "text/html")
            .header("X-Client", q.endsWith("1") ? "harness/1" : "harness/2").build(), HttpResponse.BodyHandlers.ofString());
      }
      client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/sha256"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"order\":42,\"items\":[\"a\",\"b\"]}"))
          .header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
      await().atMost(Duration.ofSeconds(10)).until(() -> proxy.store().snapshot().stream()
          .filter(f -> f.state() != dev.loupe.engine.flow.FlowState.IN_FLIGHT).count() == 3);

      Platform.startup(() -> { });
      FlowListViewModel flows = fx(() -> new FlowListViewModel(proxy.store(), Platform::runLater));
      MainWindow window = fx(() -> {
        MainWindow w = new MainWindow(flows, new DesktopContext(proxy.store(), "127.0.0.1:" + proxy.port(), confdir,
            Settings.DEFAULTS, s -> "127.0.0.1:" + proxy.port(), new ComposeWindowTest.NoSystemProxy(),
            new dev.loupe.ui.trust.FakeTrustPort(), proxy.intercept(), proxy.engine()::replay));
        Stage stage = new Stage();
        stage.setTitle("Loupe");
        stage.setScene(w.scene());
        stage.show();
        return w;
      });
      @SuppressWarnings("unchecked")
      TableView<FlowRow> table = (TableView<FlowRow>) window.table();
      await().atMost(Duration.ofSeconds(10)).until(() -> fx(() -> table.getItems().size()) == 3);

      // The modified flow's detail: banner and the original-vs-modified tab.
      fx(() -> {
        table.getSelectionModel().clearAndSelect(2);
        return null;
      });
      await().atMost(Duration.ofSeconds(10)).until(() -> fx(() -> {
        TabPane tabs = (TabPane) window.root().lookup("#detail-tabs");
        return tabs.getTabs().stream().anyMatch(t -> "tab-modified".equals(t.getId()));
      }));
      fx(() -> {
        TabPane tabs = (TabPane) window.root().lookup("#detail-tabs");
        tabs.getTabs().stream().filter(t -> "tab-modified".equals(t.getId())).findFirst()
            .ifPresent(t -> tabs.getSelectionModel().select(t));
        // More room for the detail, as a user would drag the divider up.
        ((javafx.scene.control.SplitPane) window.root().lookup(".split-pane")).setDividerPositions(0.22);
        TabPane diffTabs = (TabPane) window.root().lookup("#detail-diff-tabs");
        diffTabs.getSelectionModel().select(1);
        return null;
      });
      settle();
      copy(Screenshots.write(window.root().getScene(), "detail-modified.png"), out);

      // Compare the two GETs.
      var diff = fx(() -> {
        table.getSelectionModel().clearSelection();
        table.getSelectionModel().selectIndices(0, 1);
        return window.composeActions().compareSelected();
      });
      await().atMost(Duration.ofSeconds(10)).until(() -> fx(() -> diff.viewModel().responseProperty().get() != null));
      fx(() -> {
        diff.view().select("Response");
        return null;
      });
      settle();
      copy(Screenshots.write(diff.stage().getScene(), "diff-window.png"), out);
      fx(() -> {
        diff.view().select("Request");
        return null;
      });
      settle();
      copy(Screenshots.write(diff.stage().getScene(), "diff-window-request.png"), out);
      fx(() -> {
        diff.stage().close();
        return null;
      });

      // The composer: a POST written by hand, sent over HTTP/2.
      ComposerWindow composer = fx(() -> window.composeActions().openComposer());
      ComposerViewModel vm = composer.viewModel();
      fx(() -> {
        vm.methodProperty().set("POST");
        vm.urlProperty().set(origin.url() + "/sha256?from=composer");
        vm.addHeader("Content-Type", "application/json");
        vm.addHeader("Authorization", "Bearer demo-token");
        vm.bodyProperty().set("{\"hello\":\"origin\",\"n\":[1,2,3]}");
        vm.prettyPrintJson();
        vm.protocolProperty().set(Replayer.Protocol.H2);
        vm.send();
        return null;
      });
      await().atMost(Duration.ofSeconds(20)).until(() -> fx(() -> vm.flowIdProperty().get() >= 0
          && !vm.responseBody().textProperty().get().isEmpty()));
      fx(() -> {
        vm.urlProperty().set(origin.url() + "/headers?from=composer");
        vm.methodProperty().set("GET");
        return null;
      });
      settle();
      copy(Screenshots.write(composer.stage().getScene(), "composer.png"), out);
      fx(() -> {
        composer.stage().toFront();
        return null;
      });
      settle();
      if (System.getenv("DISPLAY") != null) {
        Process p = new ProcessBuilder("import", "-window", "root", out.resolve("xvfb-screen.png").toString())
            .inheritIO().start();
        p.waitFor(30, TimeUnit.SECONDS);
      }
      fx(() -> {
        window.close();
        flows.close();
        return null;
      });
    } finally {
      Platform.exit();
    }
    System.exit(0);
  }

  private static void copy(Path shot, Path dir) throws java.io.IOException {
    Files.copy(shot, dir.resolve(shot.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  /** Lets layout, CSS and the virtual flows catch up (two pulses and a moment for the window manager). */
  private static void settle() throws Exception {
    for (int i = 0; i < 3; i++) {
      fx(() -> null);
    }
    CompletableFuture<Void> later = new CompletableFuture<>();
    CompletableFuture.delayedExecutor(700, TimeUnit.MILLISECONDS).execute(() -> later.complete(null));
    later.get();
    fx(() -> null);
  }

  private static <T> T fx(Callable<T> c) throws Exception {
    CompletableFuture<T> f = new CompletableFuture<>();
    Platform.runLater(() -> {
      try {
        f.complete(c.call());
      } catch (Throwable t) {
        f.completeExceptionally(t);
      }
    });
    return f.get(30, TimeUnit.SECONDS);
  }
}
