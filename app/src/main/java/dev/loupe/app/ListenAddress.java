package dev.loupe.app;

import java.net.InetSocketAddress;

/** Parses {@code HOST:PORT}, {@code [v6]:PORT}, {@code :PORT} or {@code PORT} (host defaults to 127.0.0.1). */
final class ListenAddress {
  private ListenAddress() {}

  static InetSocketAddress parse(String s) {
    return dev.loupe.engine.api.ListenAddress.parse(s);
  }
}
