package dev.loupe.ui.detail;

/**
 * A styled run of text: characters {@code [start, end)} get the style class {@code style}
 * ({@code hl-string}, {@code hl-key}, ...; see loupe.css).
 */
public record Span(int start, int end, String style) {
  public Span {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("bad span " + start + ".." + end);
    }
  }
}
