package dev.loupe.ui.connect;

import dev.loupe.ui.common.FxThread;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TextField;
import javafx.scene.image.ImageView;
import javafx.scene.image.PixelWriter;
import javafx.scene.image.WritableImage;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.stage.Modality;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.util.Duration;

/**
 * The "Remote devices" window: the remote-access switch with its risk spelled out, the
 * authentication switch, user name and password (with "New password"), the address to use, the QR
 * code a phone scans (the setup page, carrying the proxy settings), and the clients refused lately
 * (refreshed every two seconds while the window is open).
 */
public final class RemoteDevicesDialog {
  /** Pixels per QR module: big enough for a phone camera across a desk. */
  static final int MODULE_PIXELS = 6;

  private final RemoteDevicesViewModel vm;
  private final VBox root = new VBox(10);
  private final ImageView qr = new ImageView();
  private final Label qrCaption = new Label();

  public RemoteDevicesDialog(RemoteDevicesViewModel vm) {
    this.vm = vm;
    CheckBox enabled = new CheckBox("Let other devices use Loupe (listen on the network)");
    enabled.setId("remote-enabled");
    enabled.selectedProperty().bindBidirectional(vm.enabledProperty());
    Label risk = new Label(RemoteDevicesViewModel.RISK);
    risk.setId("remote-risk");
    risk.setWrapText(true);
    risk.setMaxWidth(520);
    risk.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
    risk.getStyleClass().add("remote-risk");
    CheckBox auth = new CheckBox("Require a user name and password (HTTP 407 / SOCKS5)");
    auth.setId("remote-auth");
    auth.selectedProperty().bindBidirectional(vm.requireAuthProperty());
    TextField user = new TextField();
    user.setId("remote-user");
    user.textProperty().bindBidirectional(vm.usernameProperty());
    TextField password = new TextField();
    password.setId("remote-password");
    password.textProperty().bindBidirectional(vm.passwordProperty());
    Button newPassword = new Button("New password");
    newPassword.setId("remote-new-password");
    newPassword.setOnAction(e -> vm.newPassword());
    user.disableProperty().bind(vm.requireAuthProperty().not());
    password.disableProperty().bind(vm.requireAuthProperty().not());
    newPassword.disableProperty().bind(vm.requireAuthProperty().not());
    ComboBox<String> address = new ComboBox<>(vm.addresses());
    address.setId("remote-address");
    address.valueProperty().bindBidirectional(vm.addressProperty());
    Label port = new Label();
    port.textProperty().bind(Bindings.concat("port ", vm.portProperty().asString()));

    GridPane grid = new GridPane();
    grid.setHgap(8);
    grid.setVgap(6);
    grid.addRow(0, new Label("Address"), new HBox(8, address, port));
    grid.addRow(1, new Label("User"), user);
    grid.addRow(2, new Label("Password"), new HBox(8, password, newPassword));
    HBox.setHgrow(password, Priority.ALWAYS);

    Button apply = new Button("Apply");
    apply.setId("remote-apply");
    apply.setDefaultButton(true);
    apply.disableProperty().bind(vm.applyingProperty());
    apply.setOnAction(e -> vm.apply());
    apply.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
    Label message = new Label();
    message.setId("remote-message");
    message.setWrapText(true);
    message.textProperty().bind(vm.messageProperty());
    message.setMaxWidth(420);
    message.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);

    qr.setId("remote-qr");
    qr.setSmooth(false);
    qrCaption.setId("remote-qr-caption");
    qrCaption.setWrapText(true);
    qrCaption.setMaxWidth(260);
    qrCaption.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
    VBox qrBox = new VBox(6, qr, qrCaption);
    qrBox.setAlignment(Pos.TOP_CENTER);
    vm.qrTextProperty().addListener((o, was, now) -> renderQr(now));
    renderQr(vm.qrTextProperty().get());

    ListView<String> refusals = new ListView<>(vm.refusals());
    refusals.setId("remote-refusals");
    refusals.setPrefHeight(110);
    refusals.setPlaceholder(new Label("No client was refused."));

    VBox left = new VBox(10, enabled, risk, auth, grid, new HBox(10, apply, message));
    HBox top = new HBox(16, left, qrBox);
    HBox.setHgrow(left, Priority.ALWAYS);
    root.getChildren().addAll(top, new Label("Refused lately (wrong or missing credentials):"), refusals);
    root.setPadding(new Insets(14));
  }

  /** Draws the QR code of {@code text} with square modules; an empty text shows a caption only. */
  private void renderQr(String text) {
    if (text == null || text.isEmpty()) {
      qr.setImage(null);
      qrCaption.setText("Turn on remote access (and Apply) to show the QR code for a phone.");
      return;
    }
    boolean[][] m = QrCode.modules(text);
    int size = m.length * MODULE_PIXELS;
    WritableImage img = new WritableImage(size, size);
    PixelWriter w = img.getPixelWriter();
    for (int y = 0; y < size; y++) {
      for (int x = 0; x < size; x++) {
        w.setColor(x, y, m[y / MODULE_PIXELS][x / MODULE_PIXELS] ? Color.BLACK : Color.WHITE);
      }
    }
    qr.setImage(img);
    qrCaption.setText("Scan with the phone's camera: it opens Loupe's setup page (certificate and steps), which"
        + " shows the proxy settings to type into the Wi-Fi settings.");
  }

  public VBox root() {
    return root;
  }

  ImageView qrView() {
    return qr;
  }

  /** Opens the window for {@code port} (one background thread for its actions, ended when it closes). */
  public static void show(Window owner, ConnectPort port) {
    ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "loupe-remote-devices");
      t.setDaemon(true);
      return t;
    });
    FxThread fx = Platform::runLater;
    RemoteDevicesViewModel vm = new RemoteDevicesViewModel(port, fx, worker);
    vm.load();
    RemoteDevicesDialog dialog = new RemoteDevicesDialog(vm);
    Stage stage = new Stage();
    stage.initOwner(owner);
    stage.initModality(Modality.NONE);
    stage.setTitle("Remote devices");
    Scene scene = new Scene(dialog.root());
    if (owner != null && owner.getScene() != null) {
      scene.getStylesheets().setAll(owner.getScene().getStylesheets());
    }
    stage.setScene(scene);
    Timeline poll = new Timeline(new KeyFrame(Duration.seconds(2), e -> vm.refreshRefusals()));
    poll.setCycleCount(Timeline.INDEFINITE);
    poll.play();
    stage.setOnHidden(e -> {
      poll.stop();
      worker.shutdown();
    });
    stage.show();
  }
}
