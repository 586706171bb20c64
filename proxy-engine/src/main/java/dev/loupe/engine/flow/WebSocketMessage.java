package dev.loupe.engine.flow;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Objects;

/**
 * One captured WebSocket message (fragments joined).
 *
 * @param direction  who sent it
 * @param opcode     1 text, 2 binary, 8 close, 9 ping, 10 pong
 * @param payload    the (unmasked) payload, possibly cut at the capture cap
 * @param length     the full payload length on the wire
 * @param time       when the last fragment arrived
 */
public record WebSocketMessage(Direction direction, int opcode, byte[] payload, long length, Instant time) {
  /** Who sent the message. */
  public enum Direction {
    CLIENT_TO_SERVER,
    SERVER_TO_CLIENT
  }

  public static final int TEXT = 1;
  public static final int BINARY = 2;
  public static final int CLOSE = 8;
  public static final int PING = 9;
  public static final int PONG = 10;

  public WebSocketMessage {
    Objects.requireNonNull(direction, "direction");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(time, "time");
  }

  public boolean truncated() {
    return payload.length < length;
  }

  public String text() {
    return new String(payload, StandardCharsets.UTF_8);
  }
}
