package dev.loupe.engine.internal.relay;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The last handler of a client's HTTP/2 connection (after the multiplexer): the exceptions that
 * concern the whole connection end here instead of at the pipeline's tail, where Netty would log
 * each as "An exceptionCaught() event was fired, and it reached at the tail of the pipeline".
 * Stream errors never get here: the multiplexer hands them to their stream's leg.
 *
 * <p>The first one of a connection is logged, once, by what it means:
 * <ul>
 *   <li>a connection error the codec has already answered with GOAWAY and is closing the
 *       connection for: {@link Level#INFO} when the client tripped one of Loupe's abuse limits
 *       (ENHANCE_YOUR_CALM: rapid reset, SETTINGS, CONTINUATION or empty-DATA floods; see
 *       {@link Http2Codecs}), since a client being cut off is worth a line; {@link Level#FINE} for
 *       other protocol errors, which the GOAWAY tells the client;
 *   <li>an I/O error (the client reset or dropped the connection): {@link Level#FINE}, ordinary
 *       client behaviour; the connection is closed;
 *   <li>anything else: {@link Level#WARNING} with the stack trace, and the connection is closed.
 * </ul>
 * Later exceptions of the same connection (its close often brings more) are not logged.
 *
 * <p>One instance per connection; event-loop confined.
 */
final class Http2ConnectionErrors extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = Logger.getLogger(Http2ConnectionErrors.class.getName());
  private boolean logged;

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    Http2Exception h2 = Http2CodecUtil.getEmbeddedHttp2Exception(cause);
    if (!logged) {
      logged = true;
      log(ctx, cause, h2);
    }
    if (h2 == null) {
      ctx.close(); // the codec only handles its own errors; nothing else can go on here
    }
  }

  private static void log(ChannelHandlerContext ctx, Throwable cause, Http2Exception h2) {
    String client = "HTTP/2 client " + ctx.channel().remoteAddress();
    if (h2 != null) {
      Level level = h2.error() == Http2Error.ENHANCE_YOUR_CALM ? Level.INFO : Level.FINE;
      LOG.log(level, () -> client + ": connection closed with GOAWAY " + h2.error() + ": " + h2.getMessage());
    } else if (cause instanceof IOException) {
      LOG.log(Level.FINE, () -> client + ": connection failed: " + cause);
    } else {
      LOG.log(Level.WARNING, client + ": unexpected error; closing the connection", cause);
    }
  }
}
