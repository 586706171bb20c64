package dev.loupe.engine.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.loupe.testing.ProxyFixture;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/** Closing an engine twice (a shutdown hook after an explicit close, a window and its session) is harmless. */
class EngineCloseTest {
  @Test
  void aSecondCloseDoesNothing() throws IOException {
    ProxyFixture proxy = ProxyFixture.start();
    int port = proxy.port();
    try (Socket s = proxy.socket()) {
      s.getOutputStream().write("GET http://127.0.0.1:1/ HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n".getBytes());
      s.getInputStream().read(); // a 502: the engine has served something before it is closed
    }
    proxy.engine().close();
    assertDoesNotThrow(proxy.engine()::close);
    assertDoesNotThrow(proxy::close);
    assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", port).close());
  }
}
