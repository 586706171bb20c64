package dev.loupe.ui.connect;

import dev.loupe.ui.common.FxThread;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.Executor;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.StringBinding;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The "Remote devices" window: remote access on or off (Loupe then listens on the LAN, which the
 * window explains), proxy authentication for remote clients (on unless switched off) with a user
 * name and generated password the user may change, the LAN addresses, the QR code a phone scans,
 * and the clients refused lately.
 *
 * <h3>The QR code</h3>
 * It holds the setup page's address on this machine, with the proxy settings a phone needs in the
 * fragment, which never leaves the phone: {@code http://ADDR:PORT/#proxy=ADDR:PORT&user=U&password=P}.
 * Scanning it opens the page (certificate downloads and instructions), which shows the settings to
 * type into the Wi-Fi proxy fields.
 *
 * <p>Confined to the UI thread; the port's blocking calls run on {@code background}.
 */
public final class RemoteDevicesViewModel {
  /** What turning remote access on means, shown next to the switch. */
  public static final String RISK = "Remote access makes Loupe listen on this machine's network addresses:"
      + " any device that can reach them can send its traffic through Loupe, and Loupe can read it. With"
      + " authentication on, only devices given the user name and password can; without it, anyone on the"
      + " network can use this machine as a proxy. Turn it off when you are done.";
  private static final String ALPHABET = "abcdefghijkmnpqrstuvwxyzACDEFGHJKLMNPQRSTUVWXYZ23456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final ConnectPort port;
  private final FxThread fx;
  private final Executor background;
  private final BooleanProperty enabled = new SimpleBooleanProperty();
  private final BooleanProperty requireAuth = new SimpleBooleanProperty(true);
  private final StringProperty username = new SimpleStringProperty("");
  private final StringProperty password = new SimpleStringProperty("");
  private final IntegerProperty port_ = new SimpleIntegerProperty();
  private final ObservableList<String> addresses = FXCollections.observableArrayList();
  private final StringProperty address = new SimpleStringProperty("");
  private final BooleanProperty applying = new SimpleBooleanProperty();
  private final StringProperty message = new SimpleStringProperty("");
  private final ObservableList<String> refusals = FXCollections.observableArrayList();
  /** The state in force (what the QR code describes), as last loaded or applied. */
  private final javafx.beans.property.ObjectProperty<ConnectPort.RemoteAccess> inForce =
      new javafx.beans.property.SimpleObjectProperty<>();
  private final StringBinding qrText;

  public RemoteDevicesViewModel(ConnectPort port, FxThread fx, Executor background) {
    this.port = port;
    this.fx = fx;
    this.background = background;
    this.qrText = Bindings.createStringBinding(() -> qrText(inForce.get(), address.get()), inForce, address);
  }

  /** Loads the state in force from the port (fast) and the refusals. */
  public void load() {
    show(port.remoteAccess());
    refreshRefusals();
  }

  private void show(ConnectPort.RemoteAccess r) {
    inForce.set(r);
    enabled.set(r.enabled());
    requireAuth.set(r.requireAuth());
    username.set(r.username());
    password.set(r.password());
    port_.set(r.port());
    addresses.setAll(r.addresses()); // the address box bound to `address` may set it to null here
    String chosen = address.get();
    // an immutable list's contains(null) throws: null is what the address box leaves when the list empties
    if (chosen == null || !r.addresses().contains(chosen)) {
      address.set(r.addresses().isEmpty() ? "" : r.addresses().get(0));
    }
  }

  public BooleanProperty enabledProperty() { return enabled; }

  public BooleanProperty requireAuthProperty() { return requireAuth; }

  public StringProperty usernameProperty() { return username; }

  public StringProperty passwordProperty() { return password; }

  public IntegerProperty portProperty() { return port_; }

  /** This machine's LAN addresses. */
  public ObservableList<String> addresses() { return addresses; }

  /**
   * The address the QR code and the settings show: one of {@link #addresses()}, or empty (null is
   * read as empty: a bound address box sets that when the list empties).
   */
  public StringProperty addressProperty() { return address; }

  public ReadOnlyBooleanProperty applyingProperty() { return applying; }

  /** The outcome of the last apply, or a validation problem. */
  public ReadOnlyStringProperty messageProperty() { return message; }

  public ObservableList<String> refusals() { return refusals; }

  /** What the QR code encodes; empty while remote access is off (in force) or there is no LAN address. */
  public StringBinding qrTextProperty() { return qrText; }

  /** Whether the edits differ from what is in force (Apply is worth pressing). */
  public boolean changed() {
    ConnectPort.RemoteAccess r = inForce.get();
    return r == null || r.enabled() != enabled.get() || r.requireAuth() != requireAuth.get()
        || !r.username().equals(username.get()) || !r.password().equals(password.get());
  }

  /** A new random password (16 characters that are easy to type on a phone). */
  public void newPassword() {
    StringBuilder b = new StringBuilder(16);
    for (int i = 0; i < 16; i++) {
      b.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    password.set(b.toString());
  }

  /** Checks the edits and applies them (restarting the proxy); the outcome goes to {@link #messageProperty()}. */
  public void apply() {
    String problem = problem();
    if (problem != null) {
      message.set(problem);
      return;
    }
    ConnectPort.RemoteAccess wanted = new ConnectPort.RemoteAccess(enabled.get(), requireAuth.get(),
        username.get().trim(), password.get(), port_.get(), addresses);
    applying.set(true);
    message.set(wanted.enabled() ? "Opening Loupe to the network…" : "Closing Loupe to the network…");
    background.execute(() -> {
      ConnectPort.RemoteAccess now;
      String error = null;
      try {
        now = port.applyRemoteAccess(wanted);
      } catch (RuntimeException e) {
        now = null;
        error = ConnectViewModel.message(e);
      }
      ConnectPort.RemoteAccess result = now;
      String failure = error;
      fx.post(() -> {
        applying.set(false);
        if (result == null) {
          message.set("Not applied: " + failure);
          return;
        }
        show(result);
        message.set(!result.enabled() ? "Remote access is off: Loupe listens on this machine only."
            : result.requireAuth() ? "Remote access is on; devices log in with the user name and password shown."
            : "Remote access is on WITHOUT authentication: anyone on the network can use Loupe.");
      });
    });
  }

  /** Why the edits cannot be applied, or null. */
  String problem() {
    if (!requireAuth.get() || !enabled.get()) {
      return null;
    }
    String u = username.get().trim();
    if (u.isEmpty()) {
      return "Enter a user name.";
    }
    if (u.indexOf(':') >= 0) {
      return "The user name may not contain ':'.";
    }
    if (password.get().length() < 8) {
      return "Use a password of at least 8 characters.";
    }
    return null;
  }

  /** Reads the refused clients again. */
  public void refreshRefusals() {
    List<String> now = port.refusals();
    if (!now.equals(refusals)) {
      refusals.setAll(now);
    }
  }

  static String qrText(ConnectPort.RemoteAccess r, String address) {
    if (r == null || !r.enabled() || address == null || address.isEmpty()) {
      return "";
    }
    String host = address.indexOf(':') >= 0 ? "[" + address + "]" : address;
    String proxy = host + ":" + r.port();
    StringBuilder b = new StringBuilder("http://").append(proxy).append("/#proxy=").append(encode(proxy));
    if (r.requireAuth()) {
      b.append("&user=").append(encode(r.username())).append("&password=").append(encode(r.password()));
    }
    return b.toString();
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
