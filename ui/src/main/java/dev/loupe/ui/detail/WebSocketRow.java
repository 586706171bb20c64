package dev.loupe.ui.detail;

import dev.loupe.engine.flow.WebSocketMessage;
import java.nio.charset.StandardCharsets;

/**
 * One line of the WebSocket message table.
 *
 * @param index   position in the flow, from 1
 * @param arrow   {@code ↑} client to server, {@code ↓} server to client
 * @param opcode  {@code text}, {@code binary}, {@code close}, {@code ping}, {@code pong} or the number
 * @param preview the start of a text payload on one line, or empty
 */
public record WebSocketRow(int index, String arrow, String opcode, String preview, WebSocketMessage message) {
  public static WebSocketRow of(int index, WebSocketMessage m) {
    String arrow = m.direction() == WebSocketMessage.Direction.CLIENT_TO_SERVER ? "↑" : "↓";
    String preview = "";
    if (m.opcode() == WebSocketMessage.TEXT) {
      int n = Math.min(m.payload().length, 200);
      preview = new String(m.payload(), 0, n, StandardCharsets.UTF_8).replaceAll("\\s+", " ");
    } else if (m.opcode() == WebSocketMessage.CLOSE && m.payload().length >= 2) {
      int code = (m.payload()[0] & 0xFF) << 8 | (m.payload()[1] & 0xFF);
      preview = code + " " + new String(m.payload(), 2, m.payload().length - 2, StandardCharsets.UTF_8);
    }
    return new WebSocketRow(index, arrow, opcodeName(m.opcode()), preview, m);
  }

  public static String opcodeName(int opcode) {
    return switch (opcode) {
      case WebSocketMessage.TEXT -> "text";
      case WebSocketMessage.BINARY -> "binary";
      case WebSocketMessage.CLOSE -> "close";
      case WebSocketMessage.PING -> "ping";
      case WebSocketMessage.PONG -> "pong";
      default -> Integer.toString(opcode);
    };
  }
}
