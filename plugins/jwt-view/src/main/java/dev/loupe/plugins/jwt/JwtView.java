package dev.loupe.plugins.jwt;

import dev.loupe.engine.flow.Headers;
import dev.loupe.spi.ContentView;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Example content view: decodes the JSON Web Tokens of a message — in its {@code Authorization}
 * (and {@code Proxy-Authorization}) header and anywhere in its body (JSON, a form, plain text) —
 * into a tree: per token where it was found, its header, its claims (times also as ISO 8601 UTC,
 * with "expired" / "not yet valid"), and the signature's size. Signatures are <em>not</em>
 * verified (the view has no keys) and the tree says so.
 *
 * <p>Stateless: Loupe may call it on any worker thread, several at once.
 */
public final class JwtView implements ContentView {
  /** Body bytes searched for tokens at most. */
  static final int SCAN_LIMIT = 1 << 20;
  /** Claims holding seconds since the epoch (RFC 7519 §4.1, OpenID Connect's auth_time). */
  private static final Set<String> TIME_CLAIMS = Set.of("exp", "nbf", "iat", "auth_time", "updated_at");
  private static final List<String> AUTH_HEADERS = List.of("authorization", "proxy-authorization");

  @Override
  public String name() {
    return "JWT";
  }

  @Override
  public boolean accepts(Headers headers, byte[] body) {
    return !find(headers, body).isEmpty();
  }

  @Override
  public View render(Headers headers, byte[] body) {
    List<Node> tokens = new ArrayList<>();
    for (Located l : find(headers, body)) {
      tokens.add(tokenNode(l.where(), l.jwt()));
    }
    String title = tokens.isEmpty() ? "No JSON Web Token in this message"
        : tokens.size() == 1 ? "1 JSON Web Token (signatures not verified)"
        : tokens.size() + " JSON Web Tokens (signatures not verified)";
    return new Tree(new Node(title, tokens));
  }

  private record Located(String where, Jwt jwt) {}

  private static List<Located> find(Headers headers, byte[] body) {
    List<Located> out = new ArrayList<>();
    if (headers != null) {
      for (String name : AUTH_HEADERS) {
        for (String value : headers.getAll(name)) {
          for (Jwt.Found f : Jwt.findAll(value)) {
            out.add(new Located(canonical(name) + " header", f.jwt()));
          }
        }
      }
    }
    if (body != null && body.length > 0) {
      int n = Math.min(body.length, SCAN_LIMIT);
      // ISO-8859-1 maps byte i to char i, so offsets are byte offsets; tokens are ASCII anyway.
      String text = new String(body, 0, n, StandardCharsets.ISO_8859_1);
      for (Jwt.Found f : Jwt.findAll(text)) {
        out.add(new Located("body, at byte " + f.offset(), f.jwt()));
      }
    }
    return out;
  }

  private static Node tokenNode(String where, Jwt jwt) {
    List<Node> kids = new ArrayList<>();
    kids.add(new Node("header", members(jwt.header())));
    if (jwt.payload() != null) {
      kids.add(new Node("payload (claims)", members(jwt.payload())));
    } else {
      kids.add(Node.leaf("payload: " + jwt.rawPayload().length + " bytes, not a JSON object: "
          + printable(new String(jwt.rawPayload(), StandardCharsets.UTF_8))));
    }
    Object alg = jwt.header().get("alg");
    kids.add(Node.leaf("none".equals(alg) ? "signature: none (alg \"none\": an unsecured token)"
        : "signature: " + jwt.signatureBytes() + " bytes, " + alg + ", not verified"));
    String sub = jwt.payload() != null && jwt.payload().get("sub") != null ? " sub=" + scalar(jwt.payload().get("sub"))
        : "";
    return new Node(where + ": " + alg + sub + " — " + abbreviate(jwt.token()), kids);
  }

  private static List<Node> members(Map<String, Object> object) {
    List<Node> out = new ArrayList<>();
    for (Map.Entry<String, Object> e : object.entrySet()) {
      out.add(node(e.getKey(), e.getValue()));
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Node node(String key, Object value) {
    if (value instanceof Map<?, ?> m) {
      return new Node(key + " {" + m.size() + "}", members((Map<String, Object>) m));
    }
    if (value instanceof List<?> list) {
      List<Node> kids = new ArrayList<>();
      for (int i = 0; i < list.size(); i++) {
        kids.add(node("[" + i + "]", list.get(i)));
      }
      return new Node(key + " [" + list.size() + "]", kids);
    }
    String text = key + ": " + scalar(value);
    if (TIME_CLAIMS.contains(key) && value instanceof BigDecimal n) {
      text += " (" + time(key, n) + ")";
    }
    return Node.leaf(text);
  }

  private static String time(String claim, BigDecimal seconds) {
    Instant at;
    try {
      at = Instant.ofEpochSecond(seconds.longValue());
    } catch (java.time.DateTimeException e) {
      return "out of range";
    }
    Instant now = Instant.now();
    String s = at.toString();
    if (claim.equals("exp") && at.isBefore(now)) {
      s += ", expired";
    } else if (claim.equals("nbf") && at.isAfter(now)) {
      s += ", not yet valid";
    }
    return s;
  }

  private static String scalar(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof String s) {
      return "\"" + printable(s) + "\"";
    }
    if (v instanceof BigDecimal d) {
      return d.toPlainString();
    }
    return v.toString();
  }

  private static String printable(String s) {
    StringBuilder sb = new StringBuilder(Math.min(s.length(), 200));
    for (int i = 0; i < s.length() && sb.length() < 200; i++) {
      char c = s.charAt(i);
      sb.append(c < 0x20 || c == 0x7F ? '\uFFFD' : c);
    }
    return s.length() > 200 ? sb + "…" : sb.toString();
  }

  private static String abbreviate(String token) {
    return token.length() <= 24 ? token : token.substring(0, 12) + "…" + token.substring(token.length() - 8);
  }

  private static String canonical(String header) {
    return header.equals("authorization") ? "Authorization" : "Proxy-Authorization";
  }
}
