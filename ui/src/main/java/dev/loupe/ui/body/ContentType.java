package dev.loupe.ui.body;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A parsed {@code Content-Type} (RFC 9110 §8.3): the lower-cased media type and its parameters,
 * with quoted-string values unquoted ({@code boundary="a;b"}).
 *
 * @param mediaType  e.g. {@code application/json}; empty when the header was absent or blank
 * @param parameters parameter names lower-cased, values as given (unquoted)
 */
public record ContentType(String mediaType, Map<String, String> parameters) {
  public static final ContentType NONE = new ContentType("", Map.of());

  public ContentType {
    parameters = Map.copyOf(parameters);
  }

  /** Parses a header value; null or blank gives {@link #NONE}. Never throws. */
  public static ContentType parse(String header) {
    if (header == null || header.isBlank()) {
      return NONE;
    }
    int semi = header.indexOf(';');
    String type = (semi < 0 ? header : header.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    Map<String, String> params = new LinkedHashMap<>();
    int i = semi < 0 ? header.length() : semi + 1;
    int n = header.length();
    while (i < n) {
      while (i < n && (header.charAt(i) == ' ' || header.charAt(i) == '\t' || header.charAt(i) == ';')) {
        i++;
      }
      int nameStart = i;
      while (i < n && header.charAt(i) != '=' && header.charAt(i) != ';') {
        i++;
      }
      String name = header.substring(nameStart, i).trim().toLowerCase(Locale.ROOT);
      if (i >= n || header.charAt(i) == ';') {
        continue; // a parameter without a value: ignored
      }
      i++; // '='
      String value;
      if (i < n && header.charAt(i) == '"') {
        StringBuilder sb = new StringBuilder();
        i++;
        while (i < n && header.charAt(i) != '"') {
          char c = header.charAt(i);
          if (c == '\\' && i + 1 < n) {
            c = header.charAt(++i);
          }
          sb.append(c);
          i++;
        }
        i++; // closing quote (or past the end)
        value = sb.toString();
        while (i < n && header.charAt(i) != ';') {
          i++;
        }
      } else {
        int valueStart = i;
        while (i < n && header.charAt(i) != ';') {
          i++;
        }
        value = header.substring(valueStart, i).trim();
      }
      if (!name.isEmpty()) {
        params.putIfAbsent(name, value);
      }
    }
    return new ContentType(type, params);
  }

  /** The {@code charset} parameter if the JVM knows it, else {@code fallback}. */
  public Charset charset(Charset fallback) {
    String cs = parameters.get("charset");
    if (cs != null) {
      try {
        return Charset.forName(cs.trim());
      } catch (RuntimeException unknown) {
        return fallback;
      }
    }
    return fallback;
  }

  /** The charset for showing text: the parameter, else UTF-8. */
  public Charset charset() {
    return charset(StandardCharsets.UTF_8);
  }

  /** The {@code boundary} parameter, or null. */
  public String boundary() {
    return parameters.get("boundary");
  }

  /** The top-level type ({@code image} of {@code image/png}). */
  public String type() {
    int slash = mediaType.indexOf('/');
    return slash < 0 ? mediaType : mediaType.substring(0, slash);
  }

  /** The subtype ({@code vnd.api+json}), or empty. */
  public String subtype() {
    int slash = mediaType.indexOf('/');
    return slash < 0 ? "" : mediaType.substring(slash + 1);
  }

  public boolean isEmpty() {
    return mediaType.isEmpty();
  }
}
