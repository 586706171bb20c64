package dev.loupe.engine.api.session.model;

import dev.loupe.engine.flow.WebSocketMessage;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * What {@link dev.loupe.engine.api.session.SessionDiff} compares of a flow's WebSocket messages, one
 * direction at a time: how many each side sent, and for each message its opcode, length and payload
 * SHA-256.
 *
 * <h3>Per direction</h3>
 * The n-th message the client sent in A is compared with the n-th the client sent in B, and so for
 * the server: how the two directions interleave depends on timing (as the order of HTTP/2 fields of
 * different names does), so a message is identified by its direction and its place among that
 * direction's messages. A message that changed direction shows as one more and one fewer.
 *
 * <h3>Bounded</h3>
 * The first {@link #KEPT} messages of each direction are kept one by one; every message, kept or
 * not, also goes into one SHA-256 per direction ({@link Messages#sha256}), so two long-lived sockets
 * are compared in bounded memory and a difference past the kept ones is still seen.
 *
 * @param sent     what the client sent
 * @param received what the server sent
 */
public record WebSocketDigest(Messages sent, Messages received) {
  /** Messages per direction kept one by one. */
  public static final int KEPT = 10_000;

  /** No messages (not a WebSocket). */
  public static final WebSocketDigest NONE = new Builder().build();

  public WebSocketDigest {
    Objects.requireNonNull(sent, "sent");
    Objects.requireNonNull(received, "received");
  }

  /**
   * One direction's messages.
   *
   * @param count  how many
   * @param first  the first min(count, {@link #KEPT}), in order
   * @param sha256 lower-case hex SHA-256 over every message's opcode, length and payload digest, in order
   */
  public record Messages(long count, List<Message> first, String sha256) {
    public Messages {
      first = List.copyOf(first);
      Objects.requireNonNull(sha256, "sha256");
    }
  }

  /**
   * One message.
   *
   * @param opcode 1 text, 2 binary, 8 close, 9 ping, 10 pong
   * @param length payload bytes on the wire
   * @param sha256 lower-case hex SHA-256 of the payload, or null when it was not kept whole (then
   *               only the length is compared)
   */
  public record Message(int opcode, long length, String sha256) {
    /** The digest of {@code m}. */
    public static Message of(WebSocketMessage m) {
      return new Message(m.opcode(), m.length(), m.truncated() ? null : hex(newSha256().digest(m.payload())));
    }

    /** Whether two messages count as the same: opcode, and payload hash (length when one was cut). */
    public static boolean same(Message a, Message b) {
      if (a == null || b == null) {
        return a == b;
      }
      return a.opcode == b.opcode && (a.sha256 != null && b.sha256 != null ? a.sha256.equals(b.sha256)
          : a.length == b.length);
    }

    /** {@code text, 12 bytes, sha256 0123456789ab} or {@code binary, 70000 bytes, not kept whole}. */
    public String describe() {
      return type(opcode) + ", " + length + " bytes, " + (sha256 == null ? "not kept whole" : "sha256 " + sha256.substring(0, 12));
    }
  }

  /** {@code text}, {@code binary}, {@code close}, {@code ping}, {@code pong}, {@code continuation}, else {@code opcode N}. */
  public static String type(int opcode) {
    return switch (opcode) {
      case 0 -> "continuation";
      case WebSocketMessage.TEXT -> "text";
      case WebSocketMessage.BINARY -> "binary";
      case WebSocketMessage.CLOSE -> "close";
      case WebSocketMessage.PING -> "ping";
      case WebSocketMessage.PONG -> "pong";
      default -> "opcode " + opcode;
    };
  }

  /** The digest of {@code messages}, in order. */
  public static WebSocketDigest of(List<WebSocketMessage> messages) {
    Builder b = new Builder();
    messages.forEach(b::add);
    return b.build();
  }

  /** Takes messages one at a time (a store streams them), keeping what {@link WebSocketDigest} keeps. */
  public static final class Builder {
    private final Side[] sides = {new Side(), new Side()};

    /** Adds the next message. */
    public Builder add(WebSocketMessage m) {
      sides[m.direction().ordinal()].add(Message.of(m));
      return this;
    }

    public WebSocketDigest build() {
      return new WebSocketDigest(sides[WebSocketMessage.Direction.CLIENT_TO_SERVER.ordinal()].build(),
          sides[WebSocketMessage.Direction.SERVER_TO_CLIENT.ordinal()].build());
    }
  }

  private static final class Side {
    private final List<Message> first = new ArrayList<>();
    private final MessageDigest all = newSha256();
    private final ByteBuffer record = ByteBuffer.allocate(13);
    private long count;

    void add(Message m) {
      if (count++ < KEPT) {
        first.add(m);
      }
      record.clear();
      record.put((byte) (m.sha256 == null ? 0 : 1)).putInt(m.opcode).putLong(m.length);
      all.update(record.array());
      if (m.sha256 != null) {
        all.update(HexFormat.of().parseHex(m.sha256));
      }
    }

    Messages build() {
      return new Messages(count, first, hex(all.digest()));
    }
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }
}
