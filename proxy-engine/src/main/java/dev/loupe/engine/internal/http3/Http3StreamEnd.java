package dev.loupe.engine.internal.http3;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.quic.DefaultQuicStreamFrame;

/**
 * Sends the end of an HTTP/3 message (the QUIC stream's FIN) in the same STREAM frame as the
 * message's last bytes, never in a STREAM frame of its own.
 *
 * <h3>Why</h3>
 * Netty's {@code Http3FrameToHttpObjectCodec} ends a message by writing its last frame and then,
 * once that write is done, calling {@code shutdownOutput()}: a second, empty write with the FIN.
 * Unless the two happen to meet in one {@code quiche_conn_send}, the FIN leaves in a zero-length
 * STREAM frame of its own, and quiche (the QUIC library under Netty's codec) does not reliably
 * deliver such a frame when it is lost (cloudflare/quiche#2525, open):
 * <ul>
 *   <li>quiche counts a stream's sending side complete once its <em>bytes</em> are acknowledged
 *       ({@code SendBuf::is_complete}); a FIN carries none, so when the last data is acknowledged
 *       before the FIN's packet is declared lost, a stream whose receiving side is done is
 *       collected and the lost FIN is dropped instead of sent again;
 *   <li>when an earlier packet of the stream and the FIN's packet are declared lost together,
 *       with data between them acknowledged, the resend of the earlier bytes stops at the
 *       acknowledged gap and the FIN is never rebuilt.
 * </ul>
 * The peer then has every byte but never the end of the message, and waits for it until an idle
 * timeout. Under 10 % packet loss ({@code Http3PacketLossTest}) every few runs left a response
 * unended at the client (its stream cut by the 30 s idle timeout) or a request unended at the
 * origin.
 *
 * <p>With the FIN in the frame that carries the last bytes, it is sent again whenever they are,
 * and those bytes cannot be acknowledged without it.
 *
 * <h3>How</h3>
 * Two handlers: {@link #install} puts a marker right above the frame-to-object adapter, which
 * sees each {@link LastHttpContent} go down, and a holder at the head of the pipeline, below
 * Netty's HTTP/3 frame encoder. While the adapter writes a last message's frames (synchronously,
 * within the marker's write), the holder keeps back the last encoded buffer and then writes it as
 * a {@link DefaultQuicStreamFrame} with the FIN set. The adapter's own {@code shutdownOutput()}
 * that follows finds the FIN sent and does nothing more (its empty write fails quietly). A
 * {@code 100 Continue} is a full message the adapter does not end the stream after, so it is left
 * alone; so is any frame the encoder writes outside that window (then the FIN goes as before).
 *
 * <p>Event-loop confined.
 */
public final class Http3StreamEnd {
  /** Pipeline names of the two handlers. */
  public static final String HEAD = "h3-end-head";
  public static final String MARK = "h3-end-mark";

  private Http3StreamEnd() {}

  /**
   * Installs the two handlers on a request stream's pipeline: the holder first in the pipeline,
   * the marker right after the frame-to-object adapter named {@code adapterName}.
   */
  public static void install(ChannelPipeline pipeline, String adapterName) {
    Holder holder = new Holder();
    pipeline.addFirst(HEAD, holder);
    pipeline.addAfter(adapterName, MARK, new Marker(holder));
  }

  /** Whether the adapter ends the stream after writing {@code msg}. */
  static boolean endsStream(Object msg) {
    return msg instanceof LastHttpContent
        && !(msg instanceof HttpResponse r && HttpResponseStatus.CONTINUE.equals(r.status()));
  }

  /** Above the adapter: opens the holder's window around a message that ends the stream. */
  static final class Marker extends ChannelOutboundHandlerAdapter {
    private final Holder holder;

    Marker(Holder holder) {
      this.holder = holder;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      if (!endsStream(msg)) {
        ctx.write(msg, promise);
        return;
      }
      holder.holding = true;
      try {
        ctx.write(msg, promise);
      } finally {
        holder.release();
      }
    }
  }

  /** At the head: within the window, holds the last encoded buffer and sends it with the FIN. */
  static final class Holder extends ChannelOutboundHandlerAdapter {
    private ChannelHandlerContext ctx;
    boolean holding;
    private ByteBuf held;
    private ChannelPromise heldPromise;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      if (!holding || !(msg instanceof ByteBuf b)) {
        ctx.write(msg, promise);
        return;
      }
      if (held != null) {
        ctx.write(held, heldPromise); // not the last one after all
      }
      held = b;
      heldPromise = promise;
    }

    /** Closes the window: the held buffer, if any, goes with the FIN. */
    void release() {
      holding = false;
      ByteBuf b = held;
      if (b == null) {
        return;
      }
      held = null;
      ChannelPromise p = heldPromise;
      heldPromise = null;
      ctx.write(new DefaultQuicStreamFrame(b, true), p);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
      if (held != null) {
        held.release();
        heldPromise.tryFailure(new IllegalStateException("HTTP/3 stream pipeline torn down mid-write"));
        held = null;
        heldPromise = null;
      }
    }
  }
}
