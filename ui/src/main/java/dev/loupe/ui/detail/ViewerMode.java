package dev.loupe.ui.detail;

/** How a body is shown. {@link #AUTO} lets the content type (and the bytes) decide. */
public enum ViewerMode {
  AUTO("Auto"),
  TEXT("Text"),
  JSON("JSON"),
  HEX("Hex"),
  IMAGE("Image"),
  FORM("Form"),
  MULTIPART("Multipart"),
  /** A plugin's content view ({@link BodyViewModel#pluginViewProperty()} says which). */
  PLUGIN("Plugin view");

  private final String label;

  ViewerMode(String label) {
    this.label = label;
  }

  /** What the chooser shows. */
  public String label() {
    return label;
  }

  @Override
  public String toString() {
    return label;
  }
}
