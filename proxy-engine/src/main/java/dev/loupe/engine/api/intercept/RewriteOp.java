package dev.loupe.engine.api.intercept;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One change a {@link RuleAction.Rewrite} makes.
 *
 * <table>
 *   <tr><th>kind</th><th>match</th><th>value</th></tr>
 *   <tr><td>SET_HEADER</td><td>header name</td><td>the value (replaces every field of that name)</td></tr>
 *   <tr><td>ADD_HEADER</td><td>header name</td><td>the value (appended)</td></tr>
 *   <tr><td>REMOVE_HEADER</td><td>header name</td><td>unused</td></tr>
 *   <tr><td>REPLACE_URL</td><td>regex over the whole URL</td><td>replacement ({@code $1} groups)</td></tr>
 *   <tr><td>REPLACE_QUERY</td><td>regex over the query string (without {@code ?})</td><td>replacement</td></tr>
 *   <tr><td>REPLACE_BODY</td><td>regex over the body as UTF-8 text</td><td>replacement</td></tr>
 *   <tr><td>SET_STATUS</td><td>unused</td><td>the status code (response only)</td></tr>
 * </table>
 *
 * @param side  whether it changes the request or the response (URL and query: request only)
 * @param kind  what it changes
 * @param match header name or regex
 * @param value new value, replacement or status
 */
public record RewriteOp(Side side, Kind kind, String match, String value) {
  /** Which message an op changes. */
  public enum Side { REQUEST, RESPONSE }

  /** What an op changes. */
  public enum Kind { SET_HEADER, ADD_HEADER, REMOVE_HEADER, REPLACE_URL, REPLACE_QUERY, REPLACE_BODY, SET_STATUS }

  public RewriteOp {
    side = side == null ? Side.REQUEST : side;
    match = match == null ? "" : match;
    value = value == null ? "" : value;
  }

  void validate() {
    if (kind == null) {
      throw new IllegalArgumentException("a rewrite needs a kind");
    }
    switch (kind) {
      case SET_HEADER, ADD_HEADER, REMOVE_HEADER -> {
        if (match.isBlank() || !match.chars().allMatch(c -> c > 32 && c < 127 && c != ':')) {
          throw new IllegalArgumentException("invalid header name: \"" + match + "\"");
        }
        if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
          throw new IllegalArgumentException("a header value cannot contain line breaks");
        }
      }
      case REPLACE_URL, REPLACE_QUERY, REPLACE_BODY -> {
        if (kind != Kind.REPLACE_BODY && side == Side.RESPONSE) {
          throw new IllegalArgumentException(kind + " applies to the request only");
        }
        try {
          Pattern.compile(match);
        } catch (PatternSyntaxException e) {
          throw new IllegalArgumentException("invalid regex \"" + match + "\": " + e.getDescription());
        }
      }
      case SET_STATUS -> {
        if (side != Side.RESPONSE) {
          throw new IllegalArgumentException("SET_STATUS applies to the response only");
        }
        int s;
        try {
          s = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("not a status code: \"" + value + "\"");
        }
        if (s < 200 || s > 599) {
          throw new IllegalArgumentException("status must be 200..599, got " + s);
        }
      }
    }
  }

  String describe() {
    String on = side == Side.REQUEST ? "request" : "response";
    return switch (kind) {
      case SET_HEADER -> "set " + on + " header " + match + ": " + value;
      case ADD_HEADER -> "add " + on + " header " + match + ": " + value;
      case REMOVE_HEADER -> "remove " + on + " header " + match;
      case REPLACE_URL -> "URL s/" + match + "/" + value + "/";
      case REPLACE_QUERY -> "query s/" + match + "/" + value + "/";
      case REPLACE_BODY -> on + " body s/" + match + "/" + value + "/";
      case SET_STATUS -> "status " + value;
    };
  }
}
