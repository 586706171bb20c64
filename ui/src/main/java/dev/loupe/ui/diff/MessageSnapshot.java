package dev.loupe.ui.diff;

import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.ui.body.ContentDecoder;
import dev.loupe.ui.body.DecodedBody;
import java.io.IOException;

/**
 * One message as a comparison sees it, read once from a flow: the head line, the header fields and
 * the body with its content codings undone (the first {@link #BODY_LIMIT} bytes of it).
 *
 * @param head        {@code GET https://example.com/a HTTP/1.1} or {@code 200 OK HTTP/2}; for an absent
 *                    message a note such as {@code (no response)}
 * @param present     whether the message exists
 * @param headers     its fields (empty when absent)
 * @param body        the decoded body, at most {@link #BODY_LIMIT} bytes
 * @param wireSize    body bytes seen on the wire
 * @param limited     whether {@code body} is not the whole body (capture cut or over the limit)
 * @param contentType the {@code Content-Type} value, or null
 */
public record MessageSnapshot(String head, boolean present, Headers headers, byte[] body, long wireSize,
    boolean limited, String contentType) {
  /** Decoded body bytes read at most (and so hashed and compared). */
  public static final int BODY_LIMIT = 16 << 20;

  /** A request head with its body; reads (and may decode) the body: call off the UI thread. */
  public static MessageSnapshot request(RequestHead h, Body body) {
    if (h == null) {
      return absent("(no request)");
    }
    return of(h.method() + " " + h.url() + " " + h.httpVersion(), h.headers(), body);
  }

  /** A response head with its body; reads (and may decode) the body: call off the UI thread. */
  public static MessageSnapshot response(ResponseHead h, Body body) {
    if (h == null) {
      return absent("(no response)");
    }
    return of(h.status() + (h.reason().isEmpty() ? "" : " " + h.reason()) + " " + h.httpVersion(), h.headers(), body);
  }

  /** No message: {@code note} says why. */
  public static MessageSnapshot absent(String note) {
    return new MessageSnapshot(note, false, Headers.EMPTY, new byte[0], 0, false, null);
  }

  /** A message from parts in hand (tests, drafts). */
  public static MessageSnapshot of(String head, Headers headers, byte[] decodedBody) {
    return new MessageSnapshot(head, true, headers, decodedBody, decodedBody.length, false, headers.get("content-type"));
  }

  private static MessageSnapshot of(String head, Headers headers, Body body) {
    if (body == null) {
      return new MessageSnapshot(head, true, headers, new byte[0], 0, false, headers.get("content-type"));
    }
    DecodedBody d;
    try {
      d = ContentDecoder.decode(body::openStream, headers.get("content-encoding"), BODY_LIMIT);
    } catch (IOException | RuntimeException e) {
      d = new DecodedBody(new byte[0], java.util.List.of(), true, e.getMessage());
    }
    return new MessageSnapshot(head, true, headers, d.bytes(), body.size(), d.limited() || body.truncated(),
        headers.get("content-type"));
  }
}
