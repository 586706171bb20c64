package dev.loupe.ui.body;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A JSON body parsed once: its pretty text (two-space indent, {@code "key": value}) and a tree of
 * {@link JsonTreeNode}s whose children are made on demand, so a huge array costs nothing until it
 * is expanded. Numbers keep their precision ({@code 0.1}, {@code 12345678901234567890}).
 */
public final class JsonDocument {
  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();
  private static final ObjectWriter PRETTY = MAPPER.writer(new DefaultPrettyPrinter(
      Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER))
      .withObjectIndenter(new DefaultIndenter("  ", "\n"))
      .withArrayIndenter(new DefaultIndenter("  ", "\n")));

  private final JsonNode root;

  private JsonDocument(JsonNode root) {
    this.root = root;
  }

  /** Parses one JSON value (trailing content is an error); the encoding is detected (UTF-8/16/32). */
  public static JsonDocument parse(byte[] bytes) throws JsonSyntaxException {
    try {
      JsonNode node = MAPPER.readTree(bytes);
      if (node == null || node.isMissingNode()) {
        throw new JsonSyntaxException("no JSON value");
      }
      return new JsonDocument(node);
    } catch (JsonProcessingException e) {
      String where = e.getLocation() == null ? ""
          : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
      throw new JsonSyntaxException(e.getOriginalMessage() + where);
    } catch (IOException e) {
      throw new JsonSyntaxException(e.getMessage());
    }
  }

  /** Pretty text, two-space indent, {@code "key": value}. */
  public String pretty() {
    try {
      return PRETTY.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a parsed tree always prints", e);
    }
  }

  /** The root of the tree (key null). */
  public JsonTreeNode tree() {
    return new JsonTreeNode(null, root);
  }

  /** Not JSON: what the parser said, with line and column. */
  public static final class JsonSyntaxException extends Exception {
    private static final long serialVersionUID = 1L;

    public JsonSyntaxException(String message) {
      super(message);
    }
  }

  /**
   * One node of the tree view: an object member ({@code key}), an array element ({@code [3]}) or
   * the root. Immutable; {@link #children()} are made on each call.
   */
  public static final class JsonTreeNode {
    private final String key;
    private final JsonNode node;

    JsonTreeNode(String key, JsonNode node) {
      this.key = key;
      this.node = node;
    }

    /** The member name, {@code [i]} for an array element, or null for the root. */
    public String key() {
      return key;
    }

    public boolean isContainer() {
      return node.isContainerNode();
    }

    public int childCount() {
      return node.size();
    }

    /** {@code object}, {@code array}, {@code string}, {@code number}, {@code boolean} or {@code null}. */
    public String kind() {
      return switch (node.getNodeType()) {
        case OBJECT -> "object";
        case ARRAY -> "array";
        case STRING -> "string";
        case NUMBER -> "number";
        case BOOLEAN -> "boolean";
        default -> "null";
      };
    }

    /** A scalar as JSON ({@code "text"}, {@code 42}, {@code null}); {@code {3}} / {@code [5]} for containers. */
    public String valueText() {
      if (node.isObject()) {
        return "{" + node.size() + "}";
      }
      if (node.isArray()) {
        return "[" + node.size() + "]";
      }
      return node.toString();
    }

    /** {@code key: value}, or the value alone for the root. */
    public String label() {
      return key == null ? valueText() : key + ": " + valueText();
    }

    public List<JsonTreeNode> children() {
      List<JsonTreeNode> out = new ArrayList<>(node.size());
      if (node.isObject()) {
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
          Map.Entry<String, JsonNode> e = it.next();
          out.add(new JsonTreeNode(e.getKey(), e.getValue()));
        }
      } else if (node.isArray()) {
        for (int i = 0; i < node.size(); i++) {
          out.add(new JsonTreeNode("[" + i + "]", node.get(i)));
        }
      }
      return out;
    }

    @Override
    public String toString() {
      return label();
    }
  }
}
