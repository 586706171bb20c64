package dev.loupe.ui.detail;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.loupe.engine.flow.Flow;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import dev.loupe.ui.shell.Screenshots;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import javafx.scene.control.TreeView;
import javafx.scene.image.ImageView;
import javafx.scene.shape.Rectangle;
import javafx.stage.Stage;
import javax.imageio.ImageIO;
import org.fxmisc.richtext.CodeArea;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import dev.loupe.ui.body.JsonDocument;

/**
 * The pane on headless Monocle, showing flows of real traffic: a JDK HTTP server answers gzip JSON
 * and a PNG, the test origin echoes WebSocket messages, all through a real Loupe proxy. Writes
 * {@code target/screenshots/detail-*.png}.
 */
@ExtendWith(ApplicationExtension.class)
class DetailPaneTest {
  static final String JSON = "{\"user\":{\"id\":42,\"name\":\"Ann\",\"tags\":[\"admin\",\"ops\"]},"
      + "\"items\":[{\"sku\":\"A-1\",\"price\":9.99,\"stock\":true},{\"sku\":\"B-2\",\"price\":0.5,\"stock\":null}]}";

  /** 50 MiB of 1 KiB lines. */
  static final int BIG_LINES = 50 * 1024;

  private ProxyFixture proxy;
  private HttpServer origin;
  private DetailViewModel vm;
  private Scene scene;

  @Start
  void start(Stage stage) throws Exception {
    proxy = ProxyFixture.start();
    origin = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    origin.createContext("/api/items", ex -> {
      ByteArrayOutputStream gz = new ByteArrayOutputStream();
      try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
        out.write(JSON.getBytes(StandardCharsets.UTF_8));
      }
      ex.getResponseHeaders().add("Content-Type", "application/json; charset=utf-8");
      ex.getResponseHeaders().add("Content-Encoding", "gzip");
      ex.sendResponseHeaders(200, gz.size());
      ex.getResponseBody().write(gz.toByteArray());
      ex.close();
    });
    origin.createContext("/logo.png", ex -> {
      byte[] png = png();
      ex.getResponseHeaders().add("Content-Type", "image/png");
      ex.sendResponseHeaders(200, png.length);
      ex.getResponseBody().write(png);
      ex.close();
    });
    origin.createContext("/big.txt", ex -> {
      byte[] line = ("0123456789abcdef".repeat(63) + "0123456789abcde\n").getBytes(StandardCharsets.US_ASCII); // 1 KiB lines
      ex.getResponseHeaders().add("Content-Type", "text/plain");
      ex.sendResponseHeaders(200, (long) BIG_LINES * line.length);
      for (int i = 0; i < BIG_LINES; i++) {
        ex.getResponseBody().write(line);
      }
      ex.close();
    });
    origin.createContext("/app.min.js", ex -> {
      byte[] chunk = "function f(a){return a*2};var x=f(21);".repeat(1000).getBytes(StandardCharsets.US_ASCII);
      ex.getResponseHeaders().add("Content-Type", "application/javascript");
      ex.sendResponseHeaders(200, 0); // chunked: one 5 MB line
      for (int i = 0; i < 128; i++) {
        ex.getResponseBody().write(chunk);
      }
      ex.close();
    });
    origin.createContext("/page.html", ex -> {
      byte[] html = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n  <title>Loupe &amp; friends</title>\n"
          + "  <style>\n    body { margin: 0; color: #333 }\n  </style>\n</head>\n<body class=main>\n"
          + "  <!-- the greeting -->\n  <p id='hi'>Hello</p>\n  <script>\n    const n = 42; // answer\n"
          + "    if (n > 1) { console.log(\"big\", /a+b/g); }\n  </script>\n</body>\n</html>\n")
          .getBytes(StandardCharsets.UTF_8);
      ByteArrayOutputStream br = new ByteArrayOutputStream();
      com.aayushatharva.brotli4j.Brotli4jLoader.ensureAvailability();
      br.writeBytes(com.aayushatharva.brotli4j.encoder.Encoder.compress(html));
      ex.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
      ex.getResponseHeaders().add("Content-Encoding", "br");
      ex.sendResponseHeaders(200, br.size());
      ex.getResponseBody().write(br.toByteArray());
      ex.close();
    });
    origin.start();
    vm = new DetailViewModel(javafx.application.Platform::runLater);
    DetailPane pane = new DetailPane(vm);
    scene = new Scene(new javafx.scene.layout.StackPane(pane.node()), 1100, 640);
    scene.getStylesheets().add(DetailPane.class.getResource("/dev/loupe/ui/loupe.css").toExternalForm());
    stage.setScene(scene);
    stage.show();
  }

  @AfterEach
  void stop() {
    vm.close();
    proxy.close();
    origin.stop(0);
  }

  static byte[] png() throws IOException {
    BufferedImage img = new BufferedImage(96, 64, BufferedImage.TYPE_INT_ARGB);
    Graphics2D g = img.createGraphics();
    g.setColor(new Color(0x2563eb));
    g.fillRect(0, 0, 96, 64);
    g.setColor(Color.WHITE);
    g.fillOval(28, 12, 40, 40);
    g.dispose();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ImageIO.write(img, "png", out);
    return out.toByteArray();
  }

  private Flow fetch(String path) throws Exception {
    HttpResponse<byte[]> r = proxy.client().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + origin.getAddress().getPort() + path)).header("Accept-Encoding", "gzip").build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).isEqualTo(200);
    return proxy.awaitFlow(path);
  }

  private static void selectTab(FxRobot robot, String tabPaneId, String tabName) {
    TabPane tabs = robot.lookup("#" + tabPaneId).queryAs(TabPane.class);
    robot.interact(() -> tabs.getTabs().stream().filter(t -> t.getText().equals(tabName)).findFirst()
        .ifPresent(t -> tabs.getSelectionModel().select(t)));
  }

  @Test
  void gzipJsonShowsPrettyTextAndTreeThenHeadersRawAndTiming(FxRobot robot) throws Exception {
    Flow flow = fetch("/api/items?page=1");
    robot.interact(() -> vm.show(flow));
    selectTab(robot, "detail-tabs", "Response");
    selectTab(robot, "response-tabs", "Body");
    CodeArea pretty = robot.lookup("#response-body-json").queryAs(CodeArea.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> pretty.getText().startsWith("{\n  \"user\": {"));
    assertThat(pretty.getText()).contains("\"price\": 9.99", "\"stock\": null");
    assertThat(pretty.isVisible() && pretty.getParent().isVisible()).isTrue();
    assertThat(pretty.getStyleOfChar(pretty.getText().indexOf("\"user\"") + 1)).containsExactly(Highlighter.KEY);
    @SuppressWarnings("unchecked")
    TreeView<JsonDocument.JsonTreeNode> tree = robot.lookup("#response-body-tree").queryAs(TreeView.class);
    assertThat(tree.getRoot().getChildren()).extracting(i -> i.getValue().label())
        .containsExactly("user: {3}", "items: [2]");
    robot.interact(() -> tree.getRoot().getChildren().get(1).setExpanded(true));
    assertThat(tree.getRoot().getChildren().get(1).getChildren()).hasSize(2);
    assertThat(robot.lookup("#response-body-note").queryLabeled().getText()).startsWith("decoded from gzip");
    Screenshots.write(scene, "detail-json.png");
    String dark = DetailPane.class.getResource("/dev/loupe/ui/loupe-dark.css").toExternalForm();
    robot.interact(() -> scene.getStylesheets().add(dark));
    Screenshots.write(scene, "detail-json-dark.png");
    robot.interact(() -> scene.getStylesheets().remove(dark));

    // The chooser forces hex.
    robot.interact(() -> vm.response().body().modeProperty().set(ViewerMode.HEX));
    CodeArea text = robot.lookup("#response-body-text").queryAs(CodeArea.class);
    try {
      WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> text.getText().startsWith("00000000  7b 22 75 73"));
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("hex view shows: " + text.getText().lines().limit(3).toList() + " shown="
          + vm.response().body().shownProperty().get() + " note=" + vm.response().body().noteProperty().get(), e);
    }
    robot.interact(() -> vm.response().body().modeProperty().set(ViewerMode.AUTO));

    selectTab(robot, "response-tabs", "Headers");
    @SuppressWarnings("unchecked")
    TableView<HeaderRow> headers = robot.lookup("#response-headers").queryAs(TableView.class);
    assertThat(headers.getItems()).contains(HeaderRow.field("Content-encoding", "gzip"));
    selectTab(robot, "detail-tabs", "Request");
    selectTab(robot, "request-tabs", "Raw");
    CodeArea raw = robot.lookup("#request-raw").queryAs(CodeArea.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> raw.getText().startsWith("GET /api/items?page=1 HTTP/1.1"));
    Screenshots.write(scene, "detail-request-raw.png");

    selectTab(robot, "detail-tabs", "Timing");
    Node chart = robot.lookup("#timing-chart").query();
    assertThat(robot.from(chart).lookup(".timing-bar").queryAllAs(Rectangle.class))
        .extracting(r -> ((TimingPhase) r.getUserData()).name()).contains("Connect", "Send", "Wait", "Receive");
    Screenshots.write(scene, "detail-timing.png");
    selectTab(robot, "detail-tabs", "Connection");
    Screenshots.write(scene, "detail-connection.png");
    assertThat(robot.lookup("#tab-websocket").tryQuery()).isEmpty();
  }

  /**
   * Selecting a flow with a 50 MiB body, or a 5 MB one-line minified script: decoded off the UI
   * thread, which keeps answering.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"/big.txt", "/app.min.js"})
  void aHugeBodyDoesNotFreezeTheUi(String path, FxRobot robot) throws Exception {
    Flow small = fetch("/api/items?warm-up");
    robot.interact(() -> vm.show(small)); // the pane's first layout is not what this test measures
    selectTab(robot, "detail-tabs", "Response");
    selectTab(robot, "response-tabs", "Body");
    Flow flow = fetch(path);
    assertThat(flow.responseBody().size()).isEqualTo(path.equals("/big.txt") ? 50L << 20 : 38L * 1000 * 128);
    // Ping the UI thread every 20 ms and record the longest wait for an answer.
    java.util.concurrent.atomic.AtomicLong worst = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.ScheduledExecutorService pinger = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    pinger.scheduleAtFixedRate(() -> {
      long sent = System.nanoTime();
      javafx.application.Platform.runLater(() -> worst.accumulateAndGet(System.nanoTime() - sent, Math::max));
    }, 0, 20, TimeUnit.MILLISECONDS);
    long[] showNanos = new long[1];
    try {
      robot.interact(() -> {
        long t = System.nanoTime();
        vm.show(flow);
        showNanos[0] = System.nanoTime() - t;
      });
      CodeArea text = robot.lookup("#response-body-text").queryAs(CodeArea.class);
      WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS,
          () -> text.getText().startsWith(path.equals("/big.txt") ? "0123456789abcdef" : "function f(a)"));
      WaitForAsyncUtils.waitForFxEvents();
    } finally {
      pinger.shutdownNow();
    }
    System.out.printf("%s (%s): show() %.1f ms on the UI thread, longest UI-thread stall %.0f ms%n", path,
        dev.loupe.ui.flows.FlowRow.humanBytes(flow.responseBody().size()), showNanos[0] / 1e6, worst.get() / 1e6);
    assertThat(showNanos[0]).as("show() only starts the work").isLessThan(500_000_000L);
    assertThat(worst.get()).as("the UI thread keeps answering").isLessThan(3_000_000_000L);
    assertThat(robot.lookup("#response-body-note").queryLabeled().getText()).contains("first 1.0 MiB as text")
        .contains(path.equals("/big.txt") ? "showing the first 16 MiB of 50 MiB" : "broken for display");
    Screenshots.write(scene, path.equals("/big.txt") ? "detail-big-body.png" : "detail-minified.png");
  }

  @Test
  void headersTableCopiesSelectedRows(FxRobot robot) throws Exception {
    Flow flow = fetch("/api/items?copy=1");
    robot.interact(() -> vm.show(flow));
    selectTab(robot, "detail-tabs", "Response");
    selectTab(robot, "response-tabs", "Headers");
    @SuppressWarnings("unchecked")
    TableView<HeaderRow> headers = robot.lookup("#response-headers").queryAs(TableView.class);
    int at = headers.getItems().indexOf(HeaderRow.field("Content-type", "application/json; charset=utf-8"));
    assertThat(at).isGreaterThanOrEqualTo(0);
    robot.interact(() -> {
      headers.requestFocus();
      headers.getSelectionModel().clearAndSelect(at);
    });
    robot.press(javafx.scene.input.KeyCode.CONTROL).type(javafx.scene.input.KeyCode.C)
        .release(javafx.scene.input.KeyCode.CONTROL);
    String[] copied = new String[1];
    robot.interact(() -> copied[0] = javafx.scene.input.Clipboard.getSystemClipboard().getString());
    assertThat(copied[0]).isEqualTo("Content-type: application/json; charset=utf-8");
    Screenshots.write(scene, "detail-headers.png");
  }

  @Test
  void imageBodyShowsTheImage(FxRobot robot) throws Exception {
    Flow flow = fetch("/logo.png");
    robot.interact(() -> vm.show(flow));
    selectTab(robot, "detail-tabs", "Response");
    selectTab(robot, "response-tabs", "Body");
    ImageView view = robot.lookup("#response-body-image").queryAs(ImageView.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> view.getImage() != null);
    assertThat(view.getImage().getWidth()).isEqualTo(96);
    assertThat(view.getImage().getHeight()).isEqualTo(64);
    assertThat(view.getImage().getPixelReader().getArgb(2, 2)).isEqualTo(0xff2563eb);
    assertThat(view.isVisible() && view.getParent().getParent().isVisible()).isTrue();
    Screenshots.write(scene, "detail-image.png");

    // A brotli-encoded HTML page: decoded and highlighted (tags, attributes, embedded CSS and JS).
    Flow page = fetch("/page.html");
    robot.interact(() -> vm.show(page));
    CodeArea html = robot.lookup("#response-body-text").queryAs(CodeArea.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> html.getText().startsWith("<!DOCTYPE html>"));
    WaitForAsyncUtils.waitForFxEvents();
    String t = html.getText();
    assertThat(html.getStyleOfChar(t.indexOf("<html") + 1)).containsExactly(Highlighter.TAG);
    assertThat(html.getStyleOfChar(t.indexOf("lang") + 1)).containsExactly(Highlighter.ATTR);
    assertThat(html.getStyleOfChar(t.indexOf("margin") + 1)).containsExactly(Highlighter.PROPERTY);
    assertThat(html.getStyleOfChar(t.indexOf("const") + 1)).containsExactly(Highlighter.KEYWORD);
    assertThat(robot.lookup("#response-body-note").queryLabeled().getText()).startsWith("decoded from br");
    Screenshots.write(scene, "detail-html.png");
  }

  @Test
  void webSocketFlowListsItsMessages(FxRobot robot) throws Exception {
    try (TestOrigin ws = TestOrigin.http()) {
      URI uri = URI.create("ws://127.0.0.1:" + ws.port() + "/ws?detail");
      CompletableFuture<Void> closed = new CompletableFuture<>();
      java.util.concurrent.LinkedBlockingQueue<String> echoes = new java.util.concurrent.LinkedBlockingQueue<>();
      WebSocket socket = proxy.client().newWebSocketBuilder().buildAsync(uri, new WebSocket.Listener() {
        @Override
        public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
          echoes.add(data.toString());
          w.request(1);
          return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket w, int code, String reason) {
          closed.complete(null);
          return null;
        }
      }).get(20, TimeUnit.SECONDS);
      socket.sendText("{\"op\":\"subscribe\",\"topic\":\"prices\"}", true).get(20, TimeUnit.SECONDS);
      assertThat(echoes.poll(20, TimeUnit.SECONDS)).contains("subscribe");
      socket.sendText("hello", true).get(20, TimeUnit.SECONDS);
      assertThat(echoes.poll(20, TimeUnit.SECONDS)).isEqualTo("hello");
      socket.sendClose(1000, "bye").get(20, TimeUnit.SECONDS);
      closed.get(20, TimeUnit.SECONDS);
      Flow flow = proxy.awaitFlow("/ws?detail");

      robot.interact(() -> vm.show(flow));
      assertThat(robot.lookup("#tab-websocket").tryQuery()).isPresent();
      selectTab(robot, "detail-tabs", "WebSocket");
      @SuppressWarnings("unchecked")
      TableView<WebSocketRow> table = robot.lookup("#ws-messages").queryAs(TableView.class);
      assertThat(table.getItems()).extracting(WebSocketRow::arrow, WebSocketRow::opcode).startsWith(
          org.assertj.core.groups.Tuple.tuple("↑", "text"), org.assertj.core.groups.Tuple.tuple("↓", "text"),
          org.assertj.core.groups.Tuple.tuple("↑", "text"), org.assertj.core.groups.Tuple.tuple("↓", "text"));
      assertThat(table.getItems()).extracting(WebSocketRow::opcode).contains("close");
      robot.interact(() -> table.getSelectionModel().select(1));
      CodeArea text = robot.lookup("#ws-body-text").queryAs(CodeArea.class);
      WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
          () -> text.getText().equals("{\"op\":\"subscribe\",\"topic\":\"prices\"}"));
      robot.interact(() -> vm.messageBody().modeProperty().set(ViewerMode.JSON));
      CodeArea json = robot.lookup("#ws-body-json").queryAs(CodeArea.class);
      WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> json.getText().startsWith("{\n  \"op\": \"subscribe\""));
      Screenshots.write(scene, "detail-websocket.png");
    }
  }
}
