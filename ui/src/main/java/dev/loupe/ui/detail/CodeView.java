package dev.loupe.ui.detail;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import javafx.scene.Node;
import org.fxmisc.flowless.VirtualizedScrollPane;
import org.fxmisc.richtext.CodeArea;
import org.fxmisc.richtext.LineNumberFactory;
import org.fxmisc.richtext.model.StyleSpans;
import org.fxmisc.richtext.model.StyleSpansBuilder;

/**
 * A read-only, virtualized code view (RichTextFX {@link CodeArea}) with line numbers, showing text
 * with the {@link Span}s a lexer found. Only what is on screen is laid out, so long texts scroll
 * smoothly; the caller bounds their length ({@link BodyRendering#TEXT_LIMIT}).
 */
final class CodeView {
  private final CodeArea area = new CodeArea();
  private final VirtualizedScrollPane<CodeArea> pane = new VirtualizedScrollPane<>(area);

  CodeView(String id) {
    area.setEditable(false);
    area.setWrapText(false);
    area.setId(id);
    area.getStyleClass().add("loupe-code");
    area.setParagraphGraphicFactory(LineNumberFactory.get(area));
  }

  Node node() {
    return pane;
  }

  CodeArea area() {
    return area;
  }

  /** Replaces the text and its highlighting, scrolled to the top. */
  void show(String text, List<Span> spans) {
    area.replaceText(text);
    if (!text.isEmpty() && !spans.isEmpty()) {
      area.setStyleSpans(0, styleSpans(text.length(), spans));
    }
    area.moveTo(0);
    area.requestFollowCaret();
  }

  static StyleSpans<Collection<String>> styleSpans(int length, List<Span> spans) {
    StyleSpansBuilder<Collection<String>> b = new StyleSpansBuilder<>(spans.size() * 2 + 1);
    int at = 0;
    for (Span s : spans) {
      if (s.start() < at || s.end() > length) {
        continue; // never happens with our lexers; skip rather than fail
      }
      if (s.start() > at) {
        b.add(Collections.emptyList(), s.start() - at);
      }
      b.add(Collections.singletonList(s.style()), s.end() - s.start());
      at = s.end();
    }
    b.add(Collections.emptyList(), Math.max(0, length - at));
    return b.create();
  }
}
