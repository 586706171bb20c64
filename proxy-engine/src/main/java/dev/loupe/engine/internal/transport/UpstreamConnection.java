package dev.loupe.engine.internal.transport;

import dev.loupe.engine.flow.ConnectionInfo;
import io.netty.channel.Channel;

/**
 * A server-leg connection with its HTTP/1.1 codec installed, handed to one exchange at a time.
 *
 * @param channel the connection
 * @param key     pool key ({@code scheme://host:port})
 * @param info    what the flow records about it
 */
public record UpstreamConnection(Channel channel, String key, ConnectionInfo info) {}
