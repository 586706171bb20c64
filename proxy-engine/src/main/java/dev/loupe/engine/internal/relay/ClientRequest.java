package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.Headers;

/**
 * A request head as the client sent it, before Loupe decides where it goes: what the {@link
 * ClientLeg} needs of it on every HTTP version, made by that version's {@link ClientCodec}.
 *
 * @param method          the method, as sent
 * @param target          the request target, as sent (origin-, absolute- or authority-form)
 * @param protocol        what flows record as the client's protocol ({@code HTTP/1.1}, {@code
 *                        HTTP/1.0}, {@code HTTP/2}, {@code HTTP/3})
 * @param http10          an HTTP/1.0 client: no interim responses, and responses in its version
 * @param headers         the end-to-end headers as they were on the wire
 * @param ended           the message that carried this head also ended the request (no body)
 * @param streamsBody     an HTTP/2 or HTTP/3 request whose body follows as a stream: the origin
 *                        request gets chunked framing
 * @param keepAlive       the client keeps its connection open after the response
 * @param webSocket       it asks to switch to WebSocket (RFC 6455 §4.1)
 * @param expectsContinue it waits for a {@code 100 Continue} before sending its body
 * @param malformed       the decoder failed on it: the head may be partial
 * @param refusal         0, or the status it is refused with before the origin sees it (400, 505)
 * @param problem         why it is refused (with {@code refusal}), else null
 */
record ClientRequest(String method, String target, String protocol, boolean http10, Headers headers,
    boolean ended, boolean streamsBody, boolean keepAlive, boolean webSocket, boolean expectsContinue,
    boolean malformed, int refusal, String problem) {

  boolean isConnect() {
    return method.equals("CONNECT");
  }
}
