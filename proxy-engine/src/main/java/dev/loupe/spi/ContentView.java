package dev.loupe.spi;

import dev.loupe.engine.flow.Headers;
import java.util.List;

/**
 * A body viewer a plugin adds to the detail pane's viewer choice: bytes and headers in, text, a
 * tree or a table out. Registered like {@link Plugin}, as {@code META-INF/services/dev.loupe.spi.ContentView}.
 * Called on a worker thread, never the UI thread; an exception shows
 * as the view's error.
 */
public interface ContentView {
  /** The name in the viewer choice ("JWT", "Protobuf"). */
  String name();

  /**
   * Whether this view applies to a body with these headers (of the request or the response); the
   * detail pane offers it only then.
   */
  boolean accepts(Headers headers, byte[] body);

  /** Renders {@code body}. */
  View render(Headers headers, byte[] body) throws Exception;

  /** What a view shows. */
  sealed interface View {}

  /** Plain text (shown in a monospace area). */
  record Text(String text) implements View {}

  /** A tree: each node a label and children. */
  record Tree(Node root) implements View {}

  record Node(String label, List<Node> children) {
    public Node {
      children = List.copyOf(children);
    }

    public static Node leaf(String label) {
      return new Node(label, List.of());
    }
  }

  /** A table: column names and rows of cells. */
  record Table(List<String> columns, List<List<String>> rows) implements View {
    public Table {
      columns = List.copyOf(columns);
      rows = rows.stream().map(List::copyOf).toList();
    }
  }
}
