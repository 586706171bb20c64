package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.internal.exchange.ExchangeEvent;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * proxyToServer / serverToProxy for one exchange on an HTTP/1.1 server-leg connection: turns the
 * origin's response into neutral events for its {@link Http1ClientLeg}. Installed when the exchange
 * takes the connection, removed when it gives it back.
 *
 * <p>Event-loop confined (the same loop as the client leg). Payloads handed on are owned by the
 * receiver.
 */
final class Http1ServerLeg extends ChannelInboundHandlerAdapter {
  private final Http1ClientLeg owner;
  private final String authority;
  private final boolean http2;
  /** {@code HTTP/2} or {@code HTTP/3} for a multiplexed stream, else null. */
  private final String multiplexed;
  private boolean responseStarted;
  private boolean responseEnded;
  private boolean detached;

  /** {@code multiplexed}: the protocol of a stream ({@code HTTP/2}, {@code HTTP/3}), or null for HTTP/1.x. */
  Http1ServerLeg(Http1ClientLeg owner, String authority, String multiplexed) {
    this.owner = owner;
    this.authority = authority;
    this.http2 = multiplexed != null;
    this.multiplexed = multiplexed;
  }

  /** Stops forwarding events (the exchange is over); the handler is about to be removed. */
  void detach() {
    detached = true;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (detached) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof HttpResponse r) {
      DecoderResult dr = r.decoderResult();
      if (dr.isFailure()) {
        ReferenceCountUtil.release(msg);
        broken(new FlowError(FlowError.Kind.SERVER_PROTOCOL,
            authority + " sent an invalid response: " + dr.cause().getMessage()));
        return;
      }
      if (!r.status().codeClass().equals(io.netty.handler.codec.http.HttpStatusClass.INFORMATIONAL)) {
        responseStarted = true;
      }
      owner.serverEvent(new ExchangeEvent.ResponseHeadersReceived(http2
          ? new dev.loupe.engine.flow.ResponseHead(r.status().code(), "", multiplexed,
              Http1Messages.toHeadersFromHttp2(r.headers(), false))
          : Http1Messages.toResponseHead(r)));
      if (!(msg instanceof HttpContent)) {
        return;
      }
    }
    if (msg instanceof HttpContent c) {
      if (c.decoderResult().isFailure()) {
        c.release();
        broken(new FlowError(FlowError.Kind.SERVER_PROTOCOL,
            authority + " sent an invalid response body: " + c.decoderResult().cause().getMessage()));
        return;
      }
      boolean last = c instanceof LastHttpContent;
      if (last && !responseStarted) {
        // End of an informational (1xx) response; the final response follows.
        c.release();
        return;
      }
      if (c.content().isReadable()) {
        HttpContent data = last ? new DefaultHttpContent(c.content()) : c;
        owner.captureResponse(data.content());
        owner.serverEvent(new ExchangeEvent.ResponseDataReceived(data, data.content().readableBytes()));
      } else if (!last) {
        c.release();
      }
      if (last) {
        LastHttpContent lc = (LastHttpContent) c;
        dev.loupe.engine.flow.Headers trailers = http2 ? Http1Messages.toHeadersFromHttp2(lc.trailingHeaders(), false)
            : Http1Messages.toHeaders(lc.trailingHeaders());
        if (!c.content().isReadable()) {
          c.release();
        }
        responseEnded = true;
        owner.serverEvent(new ExchangeEvent.ResponseEnded(trailers));
      }
      return;
    }
    ReferenceCountUtil.release(msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (!detached) {
      owner.serverReadComplete();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (!detached) {
      owner.serverWritabilityChanged();
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (!detached && !responseEnded) {
      broken(new FlowError(FlowError.Kind.SERVER_RESET, responseStarted
          ? authority + " closed the connection before the response body ended"
          : authority + " closed the connection before sending a response"));
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!detached && !responseEnded) {
      broken(new FlowError(FlowError.Kind.SERVER_RESET,
          "connection to " + authority + " failed: " + cause.getMessage()));
    }
    ctx.close();
  }

  private void broken(FlowError error) {
    if (!detached) {
      owner.serverBroken(error, responseStarted);
    }
  }
}
