package dev.loupe.ui.common;

import dev.loupe.engine.flow.Headers;
import java.util.ArrayList;
import java.util.List;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/** One editable header line (name and value): the breakpoint editor's and the composer's header tables. */
public final class HeaderEntry {
  private final StringProperty name = new SimpleStringProperty(this, "name", "");
  private final StringProperty value = new SimpleStringProperty(this, "value", "");

  public HeaderEntry(String name, String value) {
    this.name.set(name);
    this.value.set(value);
  }

  public StringProperty nameProperty() {
    return name;
  }

  public StringProperty valueProperty() {
    return value;
  }

  /** One entry per field of {@code headers}, in order. */
  public static List<HeaderEntry> of(Headers headers) {
    List<HeaderEntry> out = new ArrayList<>(headers.size());
    for (Headers.Field f : headers.fields()) {
      out.add(new HeaderEntry(f.name(), f.value()));
    }
    return out;
  }

  /**
   * The entries as headers; rows whose name and value are both blank are skipped.
   *
   * @throws IllegalArgumentException naming the first bad row (no name, a character a header name
   *     cannot have, a line break in a value)
   */
  public static Headers toHeaders(List<HeaderEntry> entries) {
    List<Headers.Field> fields = new ArrayList<>(entries.size());
    int row = 0;
    for (HeaderEntry e : entries) {
      row++;
      String n = e.name.get() == null ? "" : e.name.get().trim();
      String v = e.value.get() == null ? "" : e.value.get();
      if (n.isEmpty() && v.isBlank()) {
        continue;
      }
      if (n.isEmpty()) {
        throw new IllegalArgumentException("header row " + row + " has a value but no name");
      }
      if (!n.chars().allMatch(c -> c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0)) {
        throw new IllegalArgumentException("invalid header name \"" + n + "\" (row " + row + ")");
      }
      if (v.indexOf('\r') >= 0 || v.indexOf('\n') >= 0) {
        throw new IllegalArgumentException("the value of header " + n + " cannot contain a line break");
      }
      fields.add(new Headers.Field(n, v.strip()));
    }
    return Headers.of(fields);
  }

  @Override
  public String toString() {
    return name.get() + ": " + value.get();
  }
}
