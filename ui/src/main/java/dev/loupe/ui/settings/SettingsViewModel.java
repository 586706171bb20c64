package dev.loupe.ui.settings;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.ListenAddress;
import dev.loupe.engine.api.util.ByteSizes;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/**
 * The Settings dialog's model: one editable property per setting, validated as the user types
 * (one message per bad field), a warning while upstream TLS verification is off or the proxy would
 * listen beyond this machine, and {@link #save()} that writes {@code settings.json} and hands the
 * new settings to whoever applies them (the running proxy restarts on a new address).
 */
public final class SettingsViewModel {
  /**
   * Applies saved settings to the running app (restarting the proxy when its settings changed);
   * returns the address the proxy listens on afterwards, throws with the reason it could not.
   */
  @FunctionalInterface
  public interface Applier {
    String apply(Settings settings) throws Exception;
  }

  private final SettingsFile file;
  private final Applier applier;
  private final StringProperty listen = new SimpleStringProperty(this, "listen");
  private final StringProperty ignoreHosts = new SimpleStringProperty(this, "ignoreHosts");
  private final StringProperty upstreamProxy = new SimpleStringProperty(this, "upstreamProxy");
  private final StringProperty bodyCap = new SimpleStringProperty(this, "bodyCap");
  private final BooleanProperty verifyUpstreamTls = new SimpleBooleanProperty(this, "verifyUpstreamTls");
  private final ObjectProperty<Settings.Theme> theme = new SimpleObjectProperty<>(this, "theme");
  private final StringProperty pauseTimeout = new SimpleStringProperty(this, "pauseTimeout");
  private final ReadOnlyStringWrapper pauseTimeoutError = new ReadOnlyStringWrapper(this, "pauseTimeoutError", "");
  private final ReadOnlyStringWrapper listenError = new ReadOnlyStringWrapper(this, "listenError", "");
  private final ReadOnlyStringWrapper ignoreHostsError = new ReadOnlyStringWrapper(this, "ignoreHostsError", "");
  private final ReadOnlyStringWrapper upstreamProxyError = new ReadOnlyStringWrapper(this, "upstreamProxyError", "");
  private final ReadOnlyStringWrapper bodyCapError = new ReadOnlyStringWrapper(this, "bodyCapError", "");
  private final ReadOnlyStringWrapper warning = new ReadOnlyStringWrapper(this, "warning", "");
  private final ReadOnlyStringWrapper result = new ReadOnlyStringWrapper(this, "result", "");
  private final ReadOnlyObjectWrapper<Settings> saved = new ReadOnlyObjectWrapper<>(this, "saved");
  private final ReadOnlyStringWrapper listening = new ReadOnlyStringWrapper(this, "listening", "");

  public SettingsViewModel(SettingsFile file, Settings current, Applier applier) {
    this.file = file;
    this.applier = applier;
    listen.set(current.listen());
    ignoreHosts.set(String.join("\n", current.ignoreHosts()));
    upstreamProxy.set(current.upstreamProxy());
    bodyCap.set(current.bodyCap());
    verifyUpstreamTls.set(current.verifyUpstreamTls());
    theme.set(current.theme());
    pauseTimeout.set(Integer.toString(current.pauseTimeoutSeconds()));
    pauseTimeout.addListener((o, a, b) -> validate());
    listen.addListener((o, a, b) -> validate());
    ignoreHosts.addListener((o, a, b) -> validate());
    upstreamProxy.addListener((o, a, b) -> validate());
    bodyCap.addListener((o, a, b) -> validate());
    verifyUpstreamTls.addListener((o, a, b) -> validate());
    validate();
  }

  public StringProperty listenProperty() { return listen; }

  /** One regex per line. */
  public StringProperty ignoreHostsProperty() { return ignoreHosts; }

  /** {@code http://host:port}, or empty to connect directly. */
  public StringProperty upstreamProxyProperty() { return upstreamProxy; }

  public StringProperty bodyCapProperty() { return bodyCap; }

  public BooleanProperty verifyUpstreamTlsProperty() { return verifyUpstreamTls; }

  public ObjectProperty<Settings.Theme> themeProperty() { return theme; }

  /** Seconds a flow may wait at a breakpoint before it is resumed unchanged; 0 = forever. */
  public StringProperty pauseTimeoutProperty() { return pauseTimeout; }

  public ReadOnlyStringProperty pauseTimeoutErrorProperty() { return pauseTimeoutError.getReadOnlyProperty(); }

  public ReadOnlyStringProperty listenErrorProperty() { return listenError.getReadOnlyProperty(); }

  public ReadOnlyStringProperty ignoreHostsErrorProperty() { return ignoreHostsError.getReadOnlyProperty(); }

  public ReadOnlyStringProperty upstreamProxyErrorProperty() { return upstreamProxyError.getReadOnlyProperty(); }

  public ReadOnlyStringProperty bodyCapErrorProperty() { return bodyCapError.getReadOnlyProperty(); }

  /** Shown in a warning colour: TLS verification off, listening on a non-loopback address. */
  public ReadOnlyStringProperty warningProperty() { return warning.getReadOnlyProperty(); }

  /** What the last save did ("Saved; the proxy now listens on …") or why it failed. */
  public ReadOnlyStringProperty resultProperty() { return result.getReadOnlyProperty(); }

  /** The settings last saved and applied (null before the first save). */
  public ReadOnlyObjectProperty<Settings> savedProperty() { return saved.getReadOnlyProperty(); }

  /** Where the proxy listens after the last successful apply. */
  public ReadOnlyStringProperty listeningProperty() { return listening.getReadOnlyProperty(); }

  /** True when every field is valid. */
  public boolean validate() {
    List<String> warnings = new ArrayList<>();
    String l = listen.get() == null ? "" : listen.get().trim();
    try {
      InetSocketAddress a = ListenAddress.parse(l);
      listenError.set("");
      if (!a.getAddress().isLoopbackAddress()) {
        warnings.add("Listening on " + l + ": anyone who can reach this machine can use the proxy.");
      }
    } catch (IllegalArgumentException e) {
      listenError.set(l.isEmpty() ? "Listen address is empty" : e.getMessage());
    }
    ignoreHostsError.set("");
    for (String line : lines(ignoreHosts.get())) {
      try {
        Pattern.compile(line);
      } catch (PatternSyntaxException e) {
        ignoreHostsError.set("Not a regex: " + line + " (" + e.getDescription() + ")");
        break;
      }
    }
    String proxy = upstreamProxy.get() == null ? "" : upstreamProxy.get().trim();
    try {
      if (!proxy.isEmpty()) {
        EngineConfig.UpstreamProxy.parse(proxy);
      }
      upstreamProxyError.set("");
    } catch (IllegalArgumentException e) {
      upstreamProxyError.set("Upstream proxy: " + e.getMessage());
    }
    try {
      long cap = ByteSizes.parse(bodyCap.get() == null ? "" : bodyCap.get());
      bodyCapError.set(cap > Integer.MAX_VALUE - 16 ? "Body capture cap: at most 2GiB" : "");
    } catch (IllegalArgumentException e) {
      bodyCapError.set("Body capture cap: " + e.getMessage());
    }
    pauseTimeoutError.set(pauseSeconds() >= 0 ? ""
        : "Pause timeout: whole seconds from 0 (wait forever) to " + Settings.MAX_PAUSE_TIMEOUT_SECONDS);
    if (!verifyUpstreamTls.get()) {
      warnings.add("Upstream TLS verification is OFF: anyone on the network path can read and change traffic.");
    }
    warning.set(String.join("\n", warnings));
    return listenError.get().isEmpty() && ignoreHostsError.get().isEmpty() && upstreamProxyError.get().isEmpty()
        && bodyCapError.get().isEmpty() && pauseTimeoutError.get().isEmpty();
  }

  /** The pause timeout as typed, or -1 when it is not a valid number of seconds. */
  private int pauseSeconds() {
    String t = pauseTimeout.get() == null ? "" : pauseTimeout.get().trim();
    try {
      int s = t.isEmpty() ? 0 : Integer.parseInt(t);
      return s <= Settings.MAX_PAUSE_TIMEOUT_SECONDS ? Math.max(s, -1) : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The settings as edited, or null when a field is invalid. */
  public Settings settings() {
    if (!validate()) {
      return null;
    }
    return new Settings(listen.get().trim(), lines(ignoreHosts.get()),
        upstreamProxy.get() == null ? "" : upstreamProxy.get().trim(), bodyCap.get().trim(),
        verifyUpstreamTls.get(), theme.get(), pauseSeconds());
  }

  /**
   * Validates, writes the file and applies the settings. Returns false (and says why in
   * {@link #resultProperty()}) when a field is invalid, the file cannot be written or applying fails.
   */
  public boolean save() {
    Settings s = settings();
    if (s == null) {
      result.set("Fix the marked fields first.");
      return false;
    }
    try {
      file.save(s);
    } catch (IOException e) {
      result.set("Could not save " + file.path() + ": " + e.getMessage());
      return false;
    }
    saved.set(s);
    try {
      String address = applier.apply(s);
      listening.set(address);
      result.set("Saved. The proxy listens on " + address + ".");
      return true;
    } catch (Exception e) {
      result.set("Saved, but could not apply: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      return false;
    }
  }

  private static List<String> lines(String text) {
    List<String> out = new ArrayList<>();
    if (text != null) {
      for (String line : text.split("\\R")) {
        if (!line.isBlank()) {
          out.add(line.trim());
        }
      }
    }
    return out;
  }
}
