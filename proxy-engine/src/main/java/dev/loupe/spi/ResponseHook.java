package dev.loupe.spi;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;

/** The whole response of a flow, as {@link Plugin#response} sees it; the rules of {@link RequestHook} apply. */
public interface ResponseHook {
  Flow flow();

  boolean editable();

  int status();

  String reason();

  Headers headers();

  byte[] body();

  String bodyText();

  ResponseHook status(int status);

  ResponseHook setHeader(String name, String value);

  ResponseHook addHeader(String name, String value);

  ResponseHook removeHeader(String name);

  ResponseHook body(byte[] body);

  ResponseHook bodyText(String text);

  /** The client gets no response: its connection (HTTP/1.x) or stream is closed. */
  void kill();
}
