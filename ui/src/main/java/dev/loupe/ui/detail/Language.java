package dev.loupe.ui.detail;

/** The syntax a text view highlights. */
public enum Language {
  PLAIN,
  JSON,
  HTML,
  XML,
  JAVASCRIPT,
  CSS
}
