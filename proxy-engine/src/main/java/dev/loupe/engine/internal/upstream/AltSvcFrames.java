package dev.loupe.engine.internal.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Reads HTTP/2 ALTSVC frames (<a href="https://datatracker.ietf.org/doc/html/rfc7838#section-4">RFC
 * 7838 §4</a>, type 0xa) on the server leg's HTTP/2 connections, so an origin that advertises its
 * HTTP/3 alternative in a frame instead of an {@code Alt-Svc} header field is remembered the same
 * way.
 *
 * <p>Netty's {@code Http2FrameCodec} drops unknown frames on stream 0 and hands those on a stream
 * to the stream as an {@code Http2UnknownFrame} (which the HTTP adapter then drops), but its frame
 * logger sees every inbound frame first, whatever the stream: {@link OriginFrameTap} hands each
 * ALTSVC frame to {@link #received}, which gives the field value to the connection's {@link Sink}
 * ({@link #SINK}, set by the connector when the connection negotiated h2). The payload is only
 * read, never consumed.
 *
 * <p>Event-loop confined (called by the connection's codec).
 */
public final class AltSvcFrames {
  /** The ALTSVC frame type. */
  static final byte TYPE = 0xa;

  /** Where a connection's ALTSVC frames go. */
  public static final AttributeKey<Sink> SINK = AttributeKey.valueOf("loupe.h2.altsvc-sink");

  /** Receives the ALTSVC frames of one connection. */
  @FunctionalInterface
  public interface Sink {
    /**
     * An ALTSVC frame arrived: {@code origin} is the ASCII origin it names (stream 0), or null for
     * the origin of the stream it came on (the connection's own); {@code fieldValue} is an
     * {@code Alt-Svc} field value.
     */
    void advertised(String origin, String fieldValue);
  }

  /** One frame's content. */
  record Frame(String origin, String fieldValue) {}

  private AltSvcFrames() {}

  /** An ALTSVC frame arrived on {@code connection}'s stream {@code streamId}: to its sink, if it has one. */
  static void received(Channel connection, int streamId, ByteBuf payload) {
    Sink sink = connection.attr(SINK).get();
    if (sink == null) {
      return;
    }
    Frame f = parse(streamId, payload);
    if (f != null) {
      sink.advertised(f.origin(), f.fieldValue());
    }
  }

  /**
   * The frame's origin and field value, or null for a malformed frame, which §4 says to ignore: on
   * stream 0 the origin is required, on any other stream it must be empty.
   */
  static Frame parse(int streamId, ByteBuf payload) {
    int n = payload.readableBytes();
    if (n < 2) {
      return null;
    }
    int at = payload.readerIndex();
    int originLength = payload.getUnsignedShort(at);
    if (n < 2 + originLength || (streamId == 0) != (originLength > 0)) {
      return null;
    }
    String origin = originLength == 0 ? null : payload.toString(at + 2, originLength, StandardCharsets.US_ASCII);
    String value = payload.toString(at + 2 + originLength, n - 2 - originLength, StandardCharsets.US_ASCII);
    return new Frame(origin, value);
  }

  /**
   * Whether the ASCII serialization {@code origin} (RFC 6454, e.g. {@code https://example.com})
   * is the origin {@code https://host:port}.
   */
  public static boolean sameOrigin(String origin, String host, int port) {
    try {
      URI u = new URI(origin.strip());
      if (!"https".equalsIgnoreCase(u.getScheme()) || u.getHost() == null) {
        return false;
      }
      String h = u.getHost().toLowerCase(Locale.ROOT);
      if (h.startsWith("[") && h.endsWith("]")) {
        h = h.substring(1, h.length() - 1);
      }
      int p = u.getPort() == -1 ? 443 : u.getPort();
      return p == port && h.equals(host.toLowerCase(Locale.ROOT));
    } catch (java.net.URISyntaxException e) {
      return false;
    }
  }
}
