package dev.loupe.ui.detail;

import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.Headers;
import java.io.ByteArrayInputStream;
import dev.loupe.ui.body.ContentDecoder;

/**
 * What a body view is asked to show: where its captured bytes come from and what the message said
 * about them.
 *
 * @param source          the captured bytes, as sent (content-encoded)
 * @param wireSize        bytes seen on the wire
 * @param capturedSize    bytes kept (less than wireSize when the capture was cut)
 * @param captureTruncated whether bytes were seen but not kept
 * @param complete        whether the body has ended
 * @param contentType     the {@code Content-Type} value, or null
 * @param contentEncoding the {@code Content-Encoding} value, or null
 * @param headers         the message's header fields (what plugin content views are given)
 */
public record BodyInput(ContentDecoder.Source source, long wireSize, long capturedSize, boolean captureTruncated,
    boolean complete, String contentType, String contentEncoding, Headers headers) {

  /** A captured message body with the head that announced it. */
  public static BodyInput of(Body body, Headers headers) {
    return new BodyInput(body::openStream, body.size(), body.capturedSize(), body.truncated(), body.isComplete(),
        headers.get("content-type"), headers.get("content-encoding"), headers);
  }

  /** Bytes in hand (a WebSocket message, a multipart part). */
  public static BodyInput of(byte[] bytes, long wireSize, String contentType) {
    return new BodyInput(() -> new ByteArrayInputStream(bytes), wireSize, bytes.length, bytes.length < wireSize,
        true, contentType, null, contentType == null ? Headers.EMPTY : Headers.of("Content-Type", contentType));
  }
}
