package dev.loupe.ui.detail;

/**
 * One line of a headers table: a field, or a section title ({@code Trailers}, {@code 103 Early
 * Hints}, {@code Query}) with an empty value.
 */
public record HeaderRow(String name, String value, boolean section) {
  public static HeaderRow field(String name, String value) {
    return new HeaderRow(name, value, false);
  }

  public static HeaderRow section(String title) {
    return new HeaderRow(title, "", true);
  }
}
