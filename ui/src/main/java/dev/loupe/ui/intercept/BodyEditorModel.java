package dev.loupe.ui.intercept;

import dev.loupe.ui.body.JsonDocument;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/**
 * A body being edited as text, JSON or hex. {@link #textProperty()} is what the editor shows in the
 * current {@link #modeProperty() mode}; {@link #bytes()} reads it back. Switching modes converts
 * through the bytes, so nothing is lost: a body that is not UTF-8 stays in hex (text would mangle
 * it), and hex that does not parse keeps its mode and says why in {@link #errorProperty()}.
 *
 * <p>Bodies over {@value #EDIT_LIMIT} bytes are not editable ({@link #editableProperty()} false;
 * a text area with megabytes of hex freezes the UI): they are shown as a note and sent unchanged.
 * UI thread only.
 */
public final class BodyEditorModel {
  /** How the body is shown and edited. */
  public enum Mode {
    TEXT("Text"), JSON("JSON"), HEX("Hex");

    private final String label;

    Mode(String label) {
      this.label = label;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  /** Bodies up to this many bytes can be edited. */
  public static final int EDIT_LIMIT = 1 << 20;

  private final ReadOnlyObjectWrapper<Mode> mode = new ReadOnlyObjectWrapper<>(this, "mode", Mode.TEXT);
  private final StringProperty text = new SimpleStringProperty(this, "text", "");
  private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper(this, "error", "");
  private final ReadOnlyBooleanWrapper editable = new ReadOnlyBooleanWrapper(this, "editable", true);
  private byte[] original = new byte[0];
  /**
   * The text as rendered from {@link #original} in the current mode (null once the body was edited
   * and converted): while the text equals it, {@link #bytes()} gives the original bytes back.
   */
  private String rendered = "";

  public BodyEditorModel() {
    text.addListener((o, was, now) -> error.set(""));
  }

  /** Starts over with {@code body}; JSON mode when {@code contentType} says JSON or the text looks like it, hex when it is not UTF-8. */
  public void load(byte[] body, String contentType) {
    original = body == null ? new byte[0] : body;
    editable.set(original.length <= EDIT_LIMIT);
    Mode m;
    if (!isUtf8(original)) {
      m = Mode.HEX;
    } else {
      String ct = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT);
      String start = new String(original, 0, Math.min(original.length, 64), StandardCharsets.UTF_8).stripLeading();
      m = ct.contains("json") || start.startsWith("{") || start.startsWith("[") ? Mode.JSON : Mode.TEXT;
    }
    mode.set(m);
    rendered = editable.get() ? render(original, m) : "";
    text.set(rendered);
    error.set("");
  }

  public ReadOnlyObjectProperty<Mode> modeProperty() {
    return mode.getReadOnlyProperty();
  }

  public StringProperty textProperty() {
    return text;
  }

  /** Why the last mode switch or pretty-print did not happen, or why the hex does not parse; empty when fine. */
  public ReadOnlyStringProperty errorProperty() {
    return error.getReadOnlyProperty();
  }

  public ReadOnlyBooleanProperty editableProperty() {
    return editable.getReadOnlyProperty();
  }

  /** How many bytes the body had when loaded. */
  public int originalSize() {
    return original.length;
  }

  /**
   * Shows the body in {@code next}; false (with {@link #errorProperty()} set) when the current text
   * does not convert (bad hex, or bytes that are not UTF-8 for text and JSON).
   */
  public boolean mode(Mode next) {
    if (next == mode.get()) {
      return true;
    }
    if (!editable.get()) {
      mode.set(next);
      return true;
    }
    byte[] b;
    try {
      b = bytes();
    } catch (IllegalArgumentException e) {
      error.set(e.getMessage());
      return false;
    }
    if (next != Mode.HEX && !isUtf8(b)) {
      error.set("The body is not UTF-8 text; edit it as hex");
      return false;
    }
    boolean unchanged = Arrays.equals(b, original);
    mode.set(next);
    String t = render(b, next);
    rendered = unchanged ? t : null;
    text.set(t);
    return true;
  }

  /** Re-indents the JSON text (switching to JSON mode); false with {@link #errorProperty()} set when it is not JSON. */
  public boolean prettyPrint() {
    if (!editable.get() || !mode(Mode.JSON)) {
      return false;
    }
    try {
      String pretty = JsonDocument.parse(text.get().getBytes(StandardCharsets.UTF_8)).pretty();
      text.set(pretty);
      return true;
    } catch (JsonDocument.JsonSyntaxException e) {
      error.set("Not JSON: " + e.getMessage());
      return false;
    }
  }

  /**
   * The body as edited.
   *
   * @throws IllegalArgumentException when the hex text does not parse (naming where)
   */
  public byte[] bytes() {
    String t = text.get() == null ? "" : text.get();
    if (!editable.get() || t.equals(rendered)) {
      return original;
    }
    return mode.get() == Mode.HEX ? parseHex(t) : t.getBytes(StandardCharsets.UTF_8);
  }

  /** Whether {@link #bytes()} differs from the loaded body (false when the hex does not parse). */
  public boolean changed() {
    try {
      return !Arrays.equals(bytes(), original);
    } catch (IllegalArgumentException e) {
      return true;
    }
  }

  static String render(byte[] b, Mode m) {
    return m == Mode.HEX ? hex(b) : new String(b, StandardCharsets.UTF_8);
  }

  /** Two hex digits per byte, 16 bytes a line, a wider gap after the 8th. */
  static String hex(byte[] b) {
    HexFormat h = HexFormat.of();
    StringBuilder sb = new StringBuilder(b.length * 3 + b.length / 16 + 1);
    for (int i = 0; i < b.length; i++) {
      if (i > 0) {
        sb.append(i % 16 == 0 ? "\n" : i % 16 == 8 ? "  " : " ");
      }
      h.toHexDigits(sb, b[i]);
    }
    return sb.toString();
  }

  /** Hex digit pairs; whitespace anywhere between bytes is ignored. */
  static byte[] parseHex(String t) {
    StringBuilder digits = new StringBuilder(t.length());
    for (int i = 0; i < t.length(); i++) {
      char c = t.charAt(i);
      if (Character.isWhitespace(c)) {
        continue;
      }
      if (Character.digit(c, 16) < 0) {
        int line = 1 + (int) t.substring(0, i).chars().filter(ch -> ch == '\n').count();
        throw new IllegalArgumentException("Not hex: '" + c + "' on line " + line);
      }
      digits.append(c);
    }
    if (digits.length() % 2 != 0) {
      throw new IllegalArgumentException("Odd number of hex digits (" + digits.length() + "): each byte needs two");
    }
    return HexFormat.of().parseHex(digits);
  }

  static boolean isUtf8(byte[] b) {
    try {
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
