package dev.loupe.ui.detail;

/** One line of the connection table: a label and its value, or a section title. */
public record InfoRow(String label, String value, boolean section) {
  public static InfoRow of(String label, String value) {
    return new InfoRow(label, value == null ? "–" : value, false);
  }

  public static InfoRow section(String title) {
    return new InfoRow(title, "", true);
  }
}
