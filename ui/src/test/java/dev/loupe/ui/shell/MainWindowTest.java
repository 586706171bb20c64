package dev.loupe.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import dev.loupe.ui.flows.FlowListViewModel;
import dev.loupe.ui.flows.FlowRow;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The real window (headless Monocle) on a real proxy: traffic appears, the filter narrows it. */
@ExtendWith(ApplicationExtension.class)
class MainWindowTest {
  private ProxyFixture proxy;
  private TestOrigin origin;
  private FlowListViewModel vm;

  @Start
  void start(Stage stage) throws Exception {
    proxy = ProxyFixture.start();
    origin = TestOrigin.http();
    vm = new FlowListViewModel(proxy.store(), Platform::runLater);
    MainWindow window = new MainWindow(vm, proxy.store(), "127.0.0.1:" + proxy.port());
    stage.setScene(window.scene());
    stage.show();
  }

  @AfterEach
  void stop() {
    vm.close();
    proxy.close();
    origin.close();
  }

  @Test
  void trafficThroughTheProxyAppearsAndTheFilterNarrowsIt(FxRobot robot) throws Exception {
    for (String path : new String[] {"/status/200?first", "/status/404?second", "/bytes/2048?third"}) {
      HttpResponse<String> r = proxy.client().send(HttpRequest.newBuilder(URI.create(origin.url() + path)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isIn(200, 404);
    }
    @SuppressWarnings("unchecked")
    TableView<FlowRow> table = robot.lookup("#flow-table").queryAs(TableView.class);
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> table.getItems().size() == 3 && table.getItems().stream().allMatch(r -> r.status() != 0));
    assertThat(table.getItems()).extracting(FlowRow::path)
        .containsExactly("/status/200?first", "/status/404?second", "/bytes/2048?third");
    assertThat(table.getItems().get(2).size()).isEqualTo(2048);
    assertThat(robot.lookup("#status").queryAs(Label.class).getText()).endsWith("3 flows");

    java.nio.file.Path png = Screenshots.write(table.getScene(), "main-window-light.png");
    assertThat(javax.imageio.ImageIO.read(png.toFile()).getWidth()).isEqualTo(1200);

    robot.clickOn("#filter").write("status>=400");
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(table.getItems()).extracting(FlowRow::path).containsExactly("/status/404?second");

    TextField filter = robot.lookup("#filter").queryAs(TextField.class);
    robot.interact(() -> filter.setText("(~d example"));
    assertThat(robot.lookup("#filter-error").queryAs(Label.class).getText()).contains("')'");
    assertThat(table.getItems()).as("the previous filter stays").hasSize(1);

    robot.interact(() -> filter.setText(""));
    robot.clickOn("#clear");
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(table.getItems()).isEmpty();
    assertThat(proxy.store().size()).isZero();

    // Capture off: traffic still flows, nothing is recorded; on again: recorded.
    robot.clickOn("#capture");
    assertThat(proxy.store().capturing()).isFalse();
    HttpResponse<String> unrecorded = proxy.client().send(
        HttpRequest.newBuilder(URI.create(origin.url() + "/status/200?paused")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(unrecorded.statusCode()).isEqualTo(200);
    robot.clickOn("#capture");
    proxy.client().send(HttpRequest.newBuilder(URI.create(origin.url() + "/status/200?resumed")).build(),
        HttpResponse.BodyHandlers.ofString());
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.getItems().size() == 1 && table.getItems().get(0).status() != 0);
    assertThat(table.getItems()).extracting(FlowRow::path).containsExactly("/status/200?resumed");
  }
}
