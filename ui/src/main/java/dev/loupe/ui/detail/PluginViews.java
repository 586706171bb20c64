package dev.loupe.ui.detail;

import dev.loupe.engine.flow.Headers;
import dev.loupe.spi.ContentView;
import java.util.ArrayList;
import java.util.List;
import dev.loupe.ui.body.DecodedBody;

/**
 * Plugin content views on a body, off the UI thread: which ones accept it, and one's rendering.
 * A plugin that throws is treated as not accepting, or its rendering as failed (the note says so);
 * it never breaks the detail pane. Pure apart from calling the plugins.
 */
final class PluginViews {
  private PluginViews() {}

  /** What a plugin view made of a body: the base rendering (text, notes) and the view itself. */
  record Rendered(BodyRendering rendering, ContentView.View view) {}

  /** The views of {@code all} that accept this body (its decoded bytes). */
  static List<ContentView> accepting(List<ContentView> all, Headers headers, byte[] bytes) {
    List<ContentView> out = new ArrayList<>();
    for (ContentView v : all) {
      try {
        if (v.accepts(headers == null ? Headers.EMPTY : headers, bytes)) {
          out.add(v);
        }
      } catch (RuntimeException | LinkageError e) {
        // a broken plugin view is not offered
      }
    }
    return out;
  }

  /** Renders {@code decoded} with {@code view}; on failure, the text viewer with the reason in the note. */
  static Rendered render(ContentView view, BodyInput in, DecodedBody decoded) {
    BodyRendering text = BodyRendering.render(in, decoded, ViewerMode.TEXT);
    String name = new ViewerOption(ViewerMode.PLUGIN, view).toString();
    ContentView.View v;
    try {
      v = view.render(in.headers() == null ? Headers.EMPTY : in.headers(), decoded.bytes());
    } catch (Exception | LinkageError e) {
      String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": "
          + e.getMessage();
      return new Rendered(withNote(text, text.mode(), text.text(), "the " + name + " view failed: " + why), null);
    }
    if (v == null) {
      return new Rendered(withNote(text, text.mode(), text.text(), "the " + name + " view showed nothing"), null);
    }
    String shown = v instanceof ContentView.Text t ? BodyRendering.breakLongLines(t.text(), new ArrayList<>()) : "";
    return new Rendered(withNote(text, ViewerMode.PLUGIN, shown, "shown by the plugin view " + name), v);
  }

  private static BodyRendering withNote(BodyRendering r, ViewerMode mode, String text, String note) {
    String notes = r.note().isEmpty() || r.note().equals("No body") ? note : note + " · " + r.note();
    return new BodyRendering(mode, r.auto(), text, mode == ViewerMode.PLUGIN ? List.of() : r.spans(), null, null,
        List.of(), List.of(), notes);
  }
}
