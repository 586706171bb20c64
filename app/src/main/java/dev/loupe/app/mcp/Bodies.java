package dev.loupe.app.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Keeps answers to an agent small: bodies cut to a byte limit (saying how much there was and how
 * to read the rest with {@code get_body}), and {@code null}s and empty lists left out.
 */
final class Bodies {
  private Bodies() {}

  /**
   * Cuts {@code message}'s {@code body} or {@code bodyBase64} to {@code max} bytes, noting the cut.
   *
   * @param hint how to read the rest (appended to the note), e.g. the get_body call
   */
  static void cut(JsonNode message, int max, String hint) {
    if (!(message instanceof ObjectNode m)) {
      return;
    }
    if (m.path("body").isTextual()) {
      byte[] b = m.get("body").asText().getBytes(StandardCharsets.UTF_8);
      if (b.length > max) {
        m.put("body", utf8Prefix(m.get("body").asText(), max));
        m.put("bodyCut", "first " + max + " of " + b.length + " bytes shown; " + hint);
      }
    } else if (m.path("bodyBase64").isTextual()) {
      byte[] b = Base64.getMimeDecoder().decode(m.get("bodyBase64").asText());
      if (b.length > max) {
        m.put("bodyBase64", Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(b, max)));
        m.put("bodyCut", "first " + max + " of " + b.length + " bytes shown; " + hint);
      }
    }
  }

  /** The longest prefix of {@code s} whose UTF-8 form fits in {@code max} bytes. */
  static String utf8Prefix(String s, int max) {
    int bytes = 0;
    int i = 0;
    while (i < s.length()) {
      int cp = s.codePointAt(i);
      int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (bytes + n > max) {
        break;
      }
      bytes += n;
      i += Character.charCount(cp);
    }
    return s.substring(0, i);
  }

  /** {@code n} without null members and empty arrays (in place), for compact listings. */
  static JsonNode compact(JsonNode n) {
    if (n instanceof ObjectNode o) {
      List<String> drop = new ArrayList<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode v = e.getValue();
        if (v.isNull() || (v.isArray() && v.isEmpty())) {
          drop.add(e.getKey());
        } else {
          compact(v);
        }
      }
      o.remove(drop);
    } else if (n instanceof ArrayNode a) {
      a.forEach(Bodies::compact);
    }
    return n;
  }
}
