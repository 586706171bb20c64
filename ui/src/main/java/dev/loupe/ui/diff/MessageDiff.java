package dev.loupe.ui.diff;

import java.util.List;

/**
 * One message (request or response) of two flows compared: head lines, headers, bodies.
 *
 * @param left    the left message
 * @param right   the right message
 * @param headers the header rows ({@link HeaderDiff})
 * @param body    the bodies compared
 */
public record MessageDiff(MessageSnapshot left, MessageSnapshot right, List<HeaderDiff.Row> headers,
    BodyComparison body) {
  public MessageDiff {
    headers = List.copyOf(headers);
  }

  /** Compares two messages (reads nothing; pure work, but run it off the UI thread for big bodies). */
  public static MessageDiff of(MessageSnapshot left, MessageSnapshot right) {
    return new MessageDiff(left, right, HeaderDiff.diff(left.headers(), right.headers()),
        BodyComparison.of(left, right));
  }

  public boolean headChanged() {
    return !left.head().equals(right.head());
  }

  /** Header rows that differ. */
  public int changedHeaders() {
    return (int) headers.stream().filter(r -> r.kind() != LineDiff.Kind.SAME).count();
  }

  /** Whether head, headers and body are all the same. */
  public boolean identical() {
    return !headChanged() && changedHeaders() == 0 && body.same();
  }

  /** {@code head changed · 2 headers differ · 3 lines differ}, or {@code identical}. */
  public String summary() {
    if (identical()) {
      return "Identical";
    }
    StringBuilder sb = new StringBuilder();
    if (headChanged()) {
      sb.append("Head line differs · ");
    }
    int h = changedHeaders();
    if (h > 0) {
      sb.append(h).append(h == 1 ? " header differs · " : " headers differ · ");
    }
    sb.append(body.same() ? "bodies identical" : "body: " + body.note());
    return sb.toString();
  }
}
