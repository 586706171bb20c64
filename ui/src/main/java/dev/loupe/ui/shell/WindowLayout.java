package dev.loupe.ui.shell;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.engine.api.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The window as the user left it — position, size, maximized, the table/detail divider, and the
 * table's columns (order, width, shown) — kept in {@code ui-state.json} in the configuration
 * directory. A missing or unreadable file gives the defaults (layout is a convenience, not data).
 */
public record WindowLayout(double x, double y, double width, double height, boolean maximized, double divider,
    List<Column> columns) {
  /** One table column as left. */
  public record Column(String id, double width, boolean visible) {}

  public static final String FILE = "ui-state.json";
  public static final WindowLayout DEFAULT = new WindowLayout(Double.NaN, Double.NaN, 1200, 760, false, 0.55, List.of());
  private static final ObjectMapper JSON = new ObjectMapper();

  public WindowLayout {
    columns = List.copyOf(columns);
  }

  /** The saved layout in {@code confdir}, or {@link #DEFAULT}. */
  public static WindowLayout load(Path confdir) {
    Path file = confdir.resolve(FILE);
    if (!Files.exists(file)) {
      return DEFAULT;
    }
    try {
      JsonNode n = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
      List<Column> cols = new ArrayList<>();
      for (JsonNode c : n.path("columns")) {
        cols.add(new Column(c.path("id").asText(), c.path("width").asDouble(80), c.path("visible").asBoolean(true)));
      }
      double w = n.path("width").asDouble(DEFAULT.width);
      double h = n.path("height").asDouble(DEFAULT.height);
      return new WindowLayout(n.path("x").asDouble(Double.NaN), n.path("y").asDouble(Double.NaN),
          w >= 200 ? w : DEFAULT.width, h >= 150 ? h : DEFAULT.height, n.path("maximized").asBoolean(false),
          Math.min(0.95, Math.max(0.05, n.path("divider").asDouble(DEFAULT.divider))), cols);
    } catch (IOException | RuntimeException e) {
      return DEFAULT;
    }
  }

  /** Writes this layout to {@code confdir} (atomically); failures are ignored, like a browser's. */
  public void save(Path confdir) {
    ObjectNode n = JSON.createObjectNode();
    if (!Double.isNaN(x)) {
      n.put("x", x);
      n.put("y", y);
    }
    n.put("width", width);
    n.put("height", height);
    n.put("maximized", maximized);
    n.put("divider", divider);
    ArrayNode cols = n.putArray("columns");
    for (Column c : columns) {
      cols.addObject().put("id", c.id()).put("width", c.width()).put("visible", c.visible());
    }
    try {
      AtomicFiles.write(confdir.resolve(FILE), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(n));
    } catch (IOException ignored) {
      // a read-only config directory costs the user their layout, nothing else
    }
  }
}
