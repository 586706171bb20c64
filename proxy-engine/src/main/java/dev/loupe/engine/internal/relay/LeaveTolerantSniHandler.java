package dev.loupe.engine.internal.relay;

import dev.loupe.engine.internal.tls.MitmContexts;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AsyncMapping;
import io.netty.util.concurrent.Future;

/**
 * The SNI step of intercepted TLS (the reverse listener, CONNECT tunnels): picks the context of
 * the leaf minted for the client's SNI name (or {@code defaultHost} without one) and replaces
 * itself with its {@code SslHandler} — unless the client has left while the leaf was minted.
 *
 * <h3>A client that leaves during minting</h3>
 * {@link MitmContexts} mints off the event loop, so the lookup can complete after the channel
 * closed. Netty's {@link SniHandler} would then replace itself in a pipeline that no longer holds
 * it (the {@code NoSuchElementException} is fired from the removed context to the pipeline's tail
 * and logged as a warning), or install TLS on a closed channel. Here such a lookup is dropped:
 * nothing is installed or thrown, a failed one is not reported either (nobody is left to tell).
 * The context stays cached in {@code MitmContexts} for the next client.
 *
 * <p>Buffers: Netty's lookup listener releases its copy of the ClientHello; the bytes this decoder
 * cumulated are released when the pipeline removes it. Event-loop confined, like every handler.
 */
final class LeaveTolerantSniHandler extends SniHandler {
  /** A ClientHello larger than this ends the connection. */
  private static final int MAX_CLIENT_HELLO = 16 * 1024;
  /** A client that sends no complete ClientHello within this is closed. */
  private static final long HANDSHAKE_TIMEOUT_MS = 10_000;

  LeaveTolerantSniHandler(MitmContexts contexts, String defaultHost) {
    super((AsyncMapping<String, SslContext>) (sni, promise) ->
        contexts.contextFor(sni == null || sni.isEmpty() ? defaultHost : sni, promise),
        MAX_CLIENT_HELLO, HANDSHAKE_TIMEOUT_MS);
  }

  @Override
  protected void onLookupComplete(ChannelHandlerContext ctx, Future<SslContext> future) throws Exception {
    if (ctx.isRemoved()) {
      return; // the client left and the pipeline is gone: nothing to install, no one to tell
    }
    super.onLookupComplete(ctx, future);
  }

  @Override
  protected void replaceHandler(ChannelHandlerContext ctx, String hostname, SslContext context) throws Exception {
    if (!ctx.channel().isActive()) {
      ctx.close(); // closed, pipeline not yet torn down: no TLS engine for a connection that is gone
      return;
    }
    super.replaceHandler(ctx, hostname, context);
  }
}
