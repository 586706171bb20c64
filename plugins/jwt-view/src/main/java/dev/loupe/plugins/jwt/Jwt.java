package dev.loupe.plugins.jwt;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JSON Web Token (RFC 7519) in its compact JWS form, decoded but <em>not verified</em>: the
 * header and the claims as parsed JSON, the signature's length. Pure and immutable.
 *
 * @param header    the JOSE header (a JSON object)
 * @param payload   the claims: a JSON object when the payload is JSON, else null
 * @param rawPayload the payload bytes as decoded from base64url
 * @param signatureBytes the signature's length in bytes (0 for {@code alg: none})
 * @param token     the token as found
 */
record Jwt(Map<String, Object> header, Map<String, Object> payload, byte[] rawPayload, int signatureBytes,
    String token) {
  /**
   * Candidates: three base64url parts, the first starting with {@code eyJ} (base64url of
   * {@code {"}), the third possibly empty (unsecured tokens).
   */
  static final Pattern CANDIDATE = Pattern.compile("eyJ[A-Za-z0-9_-]{2,}\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*");

  /** Thrown for a string that is not a JWT, saying why. */
  static final class NotAJwt extends Exception {
    NotAJwt(String message) {
      super(message);
    }
  }

  /** Decodes {@code token} ({@code header.payload.signature}). */
  @SuppressWarnings("unchecked")
  static Jwt decode(String token) throws NotAJwt {
    String[] parts = token.split("\\.", -1);
    if (parts.length != 3) {
      throw new NotAJwt(parts.length == 5 ? "an encrypted token (JWE): its claims cannot be read without the key"
          : "expected three dot-separated parts, found " + parts.length);
    }
    Object header;
    try {
      header = MiniJson.parse(new String(base64url(parts[0], "header"), StandardCharsets.UTF_8));
    } catch (MiniJson.SyntaxException e) {
      throw new NotAJwt("the header is not JSON: " + e.getMessage());
    }
    if (!(header instanceof Map<?, ?> h) || !h.containsKey("alg")) {
      throw new NotAJwt("the header is not a JSON object with \"alg\"");
    }
    byte[] raw = base64url(parts[1], "payload");
    Map<String, Object> claims = null;
    try {
      Object p = MiniJson.parse(new String(raw, StandardCharsets.UTF_8));
      if (p instanceof Map<?, ?> m) {
        claims = (Map<String, Object>) m;
      }
    } catch (MiniJson.SyntaxException e) {
      // a JWS whose payload is not a claims set: shown as bytes
    }
    return new Jwt((Map<String, Object>) header, claims, raw, base64url(parts[2], "signature").length, token);
  }

  /** Every JWT in {@code text}, in order; candidates that do not decode are skipped. */
  static List<Found> findAll(String text) {
    List<Found> out = new ArrayList<>();
    Matcher m = CANDIDATE.matcher(text);
    while (m.find()) {
      boolean glued = m.start() > 0 && isBase64url(text.charAt(m.start() - 1))
          || m.end() < text.length() && (isBase64url(text.charAt(m.end())) || text.charAt(m.end()) == '.');
      if (glued) {
        continue; // part of a longer token (a JWE, or a random string), not a JWT on its own
      }
      try {
        out.add(new Found(m.start(), decode(m.group())));
      } catch (NotAJwt ignored) {
        // looked like one, is not
      }
    }
    return out;
  }

  /** A JWT found at {@code offset} (characters) of a text. */
  record Found(int offset, Jwt jwt) {}

  private static boolean isBase64url(char c) {
    return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_';
  }

  private static byte[] base64url(String part, String what) throws NotAJwt {
    try {
      return Base64.getUrlDecoder().decode(part);
    } catch (IllegalArgumentException e) {
      throw new NotAJwt("the " + what + " is not base64url: " + e.getMessage());
    }
  }
}
