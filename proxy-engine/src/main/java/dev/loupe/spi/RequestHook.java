package dev.loupe.spi;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;

/**
 * The whole request of a flow, as {@link Plugin#request} sees it. Getters show the request as the
 * plugins before this one left it. On an intercepted flow the setters change what goes on; on an
 * observed flow they throw {@link IllegalStateException}. Valid only during the hook (and until a
 * returned stage completes).
 */
public interface RequestHook {
  /** The flow (read-only). */
  Flow flow();

  /** Whether this hook may change the request (the plugin intercepts this flow). */
  boolean editable();

  String method();

  /** The absolute URL ({@code https://host:port/path?query}). */
  String url();

  Headers headers();

  /** The body, decoded from any transfer coding (content codings as they are). */
  byte[] body();

  /** The body as text (UTF-8 unless the content type names another charset). */
  String bodyText();

  RequestHook method(String method);

  /** Sends the request to another URL (map remote): scheme, host, port and target all follow it. */
  RequestHook url(String url);

  /** Replaces every field named {@code name} with one. */
  RequestHook setHeader(String name, String value);

  RequestHook addHeader(String name, String value);

  RequestHook removeHeader(String name);

  /** Replaces the body; Content-Length follows. */
  RequestHook body(byte[] body);

  RequestHook bodyText(String text);

  /** Answers the client with this response; the origin is not contacted. */
  void answer(int status, Headers headers, byte[] body);

  /** Ends the flow without an answer: the client's connection (HTTP/1.x) or stream is closed. */
  void kill();
}
