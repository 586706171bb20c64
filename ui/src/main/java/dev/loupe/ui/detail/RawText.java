package dev.loupe.ui.detail;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import java.nio.charset.Charset;
import java.util.List;
import dev.loupe.ui.body.ContentType;

/**
 * A message as HTTP/1.1-style text, whatever version carried it: start line, header fields, an
 * empty line, then a preview of the body as sent (still content-encoded) when it reads as text, or
 * a one-line note when it is binary; trailers last. HTTP/2 and HTTP/3 have no {@code Host} field
 * (the authority travels as {@code :authority}), so one is shown for them.
 */
public final class RawText {
  /** Body bytes shown at most. */
  public static final int BODY_PREVIEW = 64 * 1024;

  private RawText() {}

  public static String request(RequestHead head, byte[] bodyPreview, long bodySize, Headers trailers) {
    StringBuilder sb = new StringBuilder(256);
    sb.append(head.method()).append(' ').append(head.target()).append(' ').append(head.httpVersion()).append("\r\n");
    if (!head.headers().contains("host") && !"CONNECT".equals(head.method())) {
      sb.append("Host: ").append(head.authority()).append("\r\n");
    }
    fields(sb, head.headers());
    sb.append("\r\n");
    body(sb, bodyPreview, bodySize, ContentType.parse(head.headers().get("content-type")).charset());
    trailers(sb, trailers);
    return sb.toString();
  }

  /** The informational (1xx) heads first, then the final one. */
  public static String response(List<ResponseHead> informational, ResponseHead head, byte[] bodyPreview,
      long bodySize, Headers trailers) {
    StringBuilder sb = new StringBuilder(256);
    for (ResponseHead info : informational) {
      statusLine(sb, info);
      fields(sb, info.headers());
      sb.append("\r\n");
    }
    statusLine(sb, head);
    fields(sb, head.headers());
    sb.append("\r\n");
    body(sb, bodyPreview, bodySize, ContentType.parse(head.headers().get("content-type")).charset());
    trailers(sb, trailers);
    return sb.toString();
  }

  private static void statusLine(StringBuilder sb, ResponseHead head) {
    sb.append(head.httpVersion()).append(' ').append(head.status());
    if (!head.reason().isEmpty()) {
      sb.append(' ').append(head.reason());
    }
    sb.append("\r\n");
  }

  private static void fields(StringBuilder sb, Headers headers) {
    for (Headers.Field f : headers.fields()) {
      sb.append(f.name()).append(": ").append(f.value()).append("\r\n");
    }
  }

  private static void body(StringBuilder sb, byte[] preview, long size, Charset charset) {
    if (size <= 0) {
      return;
    }
    int shown = Math.min(preview.length, BODY_PREVIEW);
    byte[] head = shown == preview.length ? preview : java.util.Arrays.copyOf(preview, shown);
    if (!ViewerChoice.looksLikeText(head)) {
      sb.append("[").append(size).append(" bytes of binary data: see the Body tab]\r\n");
      return;
    }
    sb.append(new String(head, charset));
    if (shown < size) {
      sb.append("\r\n[… ").append(size - shown).append(" more bytes]\r\n");
    }
  }

  private static void trailers(StringBuilder sb, Headers trailers) {
    if (trailers != null && !trailers.isEmpty()) {
      if (sb.charAt(sb.length() - 1) != '\n') {
        sb.append("\r\n");
      }
      fields(sb, trailers);
    }
  }
}
