package dev.loupe.engine.internal.upstream;

import dev.loupe.engine.flow.ConnectionInfo;
import io.netty.channel.Channel;

/**
 * A server-leg channel carrying one exchange at a time: an HTTP/1.1 connection with its codec
 * (HTTP messages), one HTTP/2 stream (HTTP/2 frames, no adapter) or one HTTP/3 stream behind
 * Netty's frame-to-message adapter.
 *
 * @param channel     the connection, or the stream channel for HTTP/2
 * @param key         pool key ({@code scheme://host:port})
 * @param info        what the flow records about the connection
 * @param protocol    {@code HTTP/1.1} or {@code HTTP/2}
 * @param multiplexed true for an HTTP/2 stream (closed after its exchange, never pooled itself)
 */
public record UpstreamConnection(Channel channel, String key, ConnectionInfo info, String protocol,
    boolean multiplexed) {
  public UpstreamConnection(Channel channel, String key, ConnectionInfo info) {
    this(channel, key, info, "HTTP/1.1", false);
  }
}
