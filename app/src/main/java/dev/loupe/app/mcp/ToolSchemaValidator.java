package dev.loupe.app.mcp;

import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.JsonSchemaValidatorSupplier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks tool arguments against the tools' input schemas, for the MCP SDK (which calls it before a
 * tool runs and answers a failure as an error result naming the problem).
 *
 * <p>It understands the part of JSON Schema Loupe's own tool schemas use — {@code type} (one or a
 * list), {@code properties}, {@code required}, {@code additionalProperties} (boolean),
 * {@code enum}, {@code minimum}, {@code maximum}, {@code minLength}, {@code maxLength},
 * {@code items}, and the annotations {@code description}, {@code title}, {@code default},
 * {@code examples} — and {@link #validateSchema} refuses any other keyword, so a schema cannot use
 * one it would silently ignore ({@code ToolCatalogTest} checks every tool's schema with it). It
 * stands in for the SDK's networknt-based validator, whose library version clashes with the one
 * Loupe's HAR tests use.
 *
 * <p>Stateless and thread-safe.
 */
public final class ToolSchemaValidator implements JsonSchemaValidator {
  private static final Set<String> KEYWORDS = Set.of("type", "properties", "required", "additionalProperties",
      "enum", "minimum", "maximum", "minLength", "maxLength", "items", "description", "title", "default",
      "examples", "$schema");

  /** The SDK finds this validator through {@code META-INF/services}. */
  public static final class Supplier implements JsonSchemaValidatorSupplier {
    @Override
    public JsonSchemaValidator get() {
      return new ToolSchemaValidator();
    }
  }

  @Override
  public ValidationResponse validate(Map<String, Object> schema, Object instance) {
    List<String> problems = new ArrayList<>();
    check(schema, instance, "", problems);
    return problems.isEmpty() ? ValidationResponse.asValid(null)
        : ValidationResponse.asInvalid(String.join("; ", problems));
  }

  @Override
  public ValidationResponse validateSchema(Map<String, Object> schema) {
    List<String> problems = new ArrayList<>();
    checkSchema(schema, "", problems);
    return problems.isEmpty() ? ValidationResponse.asValid(null)
        : ValidationResponse.asInvalid(String.join("; ", problems));
  }

  @SuppressWarnings("unchecked")
  private static void checkSchema(Map<String, Object> schema, String at, List<String> problems) {
    for (String k : schema.keySet()) {
      if (!KEYWORDS.contains(k)) {
        problems.add((at.isEmpty() ? "schema" : at) + ": unsupported keyword \"" + k + "\"");
      }
    }
    if (schema.get("properties") instanceof Map<?, ?> props) {
      props.forEach((name, sub) -> {
        if (sub instanceof Map<?, ?> m) {
          checkSchema((Map<String, Object>) m, path(at, String.valueOf(name)), problems);
        } else {
          problems.add(path(at, String.valueOf(name)) + ": a property's schema must be an object");
        }
      });
    }
    if (schema.get("items") instanceof Map<?, ?> items) {
      checkSchema((Map<String, Object>) items, at + "[]", problems);
    }
    Object extra = schema.get("additionalProperties");
    if (extra != null && !(extra instanceof Boolean)) {
      problems.add((at.isEmpty() ? "schema" : at) + ": additionalProperties must be true or false here");
    }
  }

  @SuppressWarnings("unchecked")
  private static void check(Map<String, Object> schema, Object value, String at, List<String> problems) {
    Object type = schema.get("type");
    if (type != null && !matchesType(type, value)) {
      problems.add(name(at) + " must be " + describe(type) + ", got " + show(value));
      return;
    }
    if (schema.get("enum") instanceof Collection<?> allowed && !allowed.contains(value)) {
      problems.add(name(at) + " must be one of " + allowed + ", got " + show(value));
    }
    if (value instanceof Number n) {
      if (schema.get("minimum") instanceof Number min && n.doubleValue() < min.doubleValue()) {
        problems.add(name(at) + " must be at least " + min + ", got " + n);
      }
      if (schema.get("maximum") instanceof Number max && n.doubleValue() > max.doubleValue()) {
        problems.add(name(at) + " must be at most " + max + ", got " + n);
      }
    }
    if (value instanceof String s) {
      if (schema.get("minLength") instanceof Number min && s.length() < min.intValue()) {
        problems.add(name(at) + " must have at least " + min + " characters");
      }
      if (schema.get("maxLength") instanceof Number max && s.length() > max.intValue()) {
        problems.add(name(at) + " must have at most " + max + " characters, got " + s.length());
      }
    }
    if (value instanceof List<?> list && schema.get("items") instanceof Map<?, ?> items) {
      for (int i = 0; i < list.size(); i++) {
        check((Map<String, Object>) items, list.get(i), at + "[" + i + "]", problems);
      }
    }
    if (value instanceof Map<?, ?> object) {
      Map<String, Object> props = schema.get("properties") instanceof Map<?, ?> p ? (Map<String, Object>) p : Map.of();
      if (schema.get("required") instanceof Collection<?> required) {
        for (Object r : required) {
          if (!object.containsKey(r)) {
            problems.add(path(at, String.valueOf(r)) + " is required");
          }
        }
      }
      for (Map.Entry<?, ?> e : object.entrySet()) {
        String key = String.valueOf(e.getKey());
        Object sub = props.get(key);
        if (sub instanceof Map<?, ?> m) {
          check((Map<String, Object>) m, e.getValue(), path(at, key), problems);
        } else if (Boolean.FALSE.equals(schema.get("additionalProperties"))) {
          problems.add("unknown argument \"" + path(at, key) + "\" (known: "
              + String.join(", ", new TreeSet<>(props.keySet())) + ")");
        }
      }
    }
  }

  private static boolean matchesType(Object type, Object value) {
    if (type instanceof Collection<?> any) {
      return any.stream().anyMatch(t -> matchesType(t, value));
    }
    return switch (String.valueOf(type)) {
      case "object" -> value instanceof Map;
      case "array" -> value instanceof List;
      case "string" -> value instanceof String;
      case "boolean" -> value instanceof Boolean;
      case "null" -> value == null;
      case "number" -> value instanceof Number;
      case "integer" -> value instanceof Number n && (n instanceof Integer || n instanceof Long
          || n instanceof java.math.BigInteger || n.doubleValue() == Math.rint(n.doubleValue()));
      default -> false;
    };
  }

  private static String describe(Object type) {
    if (type instanceof Collection<?> any) {
      List<String> names = new ArrayList<>();
      any.forEach(t -> names.add(describe(t)));
      return String.join(" or ", names);
    }
    String t = String.valueOf(type);
    return switch (t) {
      case "object", "array", "integer" -> "an " + t;
      default -> "a " + t;
    };
  }

  private static String show(Object value) {
    if (value == null) {
      return "null";
    }
    String s = value instanceof String str ? "\"" + str + "\"" : String.valueOf(value);
    return s.length() > 60 ? s.substring(0, 57) + "..." : s;
  }

  private static String path(String at, String key) {
    return at.isEmpty() ? key : at + "." + key;
  }

  private static String name(String at) {
    return at.isEmpty() ? "the arguments" : at;
  }
}
