package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.FlowError;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The error responses Loupe itself writes to a client (400, 413, 502, 504, ...): a short text page
 * naming the cause, {@code X-Loupe-Error} with the failure's kind, never cached.
 */
final class ErrorPages {
  private ErrorPages() {}

  /**
   * A full response; {@code close} adds {@code Connection: close} (the caller closes after writing).
   * {@code http10} answers an HTTP/1.0 client in its own version.
   */
  static FullHttpResponse page(int status, String reason, String detail, FlowError.Kind kind, boolean http10,
      boolean close) {
    String body = status + " " + reason + "\n\nLoupe: " + detail + "\n";
    ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
    FullHttpResponse r = new DefaultFullHttpResponse(http10 ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1,
        new HttpResponseStatus(status, reason), content);
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
    r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    if (kind != null) {
      r.headers().set("X-Loupe-Error", kind.name().toLowerCase(Locale.ROOT).replace('_', '-'));
    }
    if (close) {
      r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    return r;
  }

  /** What a decoder's failure says of a malformed request, for the page and the flow. */
  static String reason(Throwable cause) {
    if (cause == null) {
      return "malformed request";
    }
    String m = cause.getMessage();
    if (cause instanceof io.netty.handler.codec.TooLongFrameException) {
      return m == null ? "request head too large" : m;
    }
    return m == null || m.isBlank() ? cause.getClass().getSimpleName() : m;
  }
}
