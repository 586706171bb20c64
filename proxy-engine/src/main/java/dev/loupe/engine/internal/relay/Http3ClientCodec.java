package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.transport.ConnectionIds;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import java.net.InetSocketAddress;

/**
 * One HTTP/3 stream, through Netty's frame-to-object adapter ({@link AdaptedStreamCodec}): only a
 * 100 is written as a full response, no Alt-Svc (the client already speaks HTTP/3 to Loupe), streams are
 * reset with HTTP/3 error codes, and the connection is a QUIC one.
 */
final class Http3ClientCodec extends AdaptedStreamCodec {
  Http3ClientCodec(ChannelHandlerContext ctx, ClientSide side) {
    super(ctx, side);
  }

  @Override
  ConnectionInfo connection(TlsInfo tls) {
    Channel ch = ctx.channel();
    if (ch.parent() instanceof QuicChannel quic) {
      // The QUIC connection's addresses are connection ids; the UDP addresses are these.
      return new ConnectionInfo(ConnectionIds.of(quic), (InetSocketAddress) quic.remoteSocketAddress(),
          (InetSocketAddress) quic.localSocketAddress(), tls, false);
    }
    return super.connection(tls);
  }

  @Override
  void describe(RecordedFlow flow) {
    if (ctx.channel() instanceof QuicStreamChannel stream) {
      flow.clientStreamId((int) Math.min(stream.streamId(), Integer.MAX_VALUE));
      flow.clientQuicConnectionId(Http3Streams.connectionIdHex(stream.parent()));
    }
  }

  @Override
  String goneReason() {
    return Http3Streams.cancelReason(ctx.channel());
  }

  @Override
  void interim(ResponseHead head, ClientRequest request) {
    HttpResponse interim = Http1Messages.toClientResponse(head, version(request), false, true);
    // A full 103 would end the stream on HTTP/3's adapter; a 100 must be full.
    ctx.writeAndFlush(head.status() == 100 ? full(interim) : interim);
  }

  @Override
  void altSvc(HttpResponse response, String altSvc) {
    if (altSvc != null) {
      response.headers().remove(HttpHeaderNames.ALT_SVC); // the client already speaks HTTP/3 to us
    }
  }

  @Override
  void abort(boolean reset) {
    Http3Streams.reset(ctx.channel(), reset ? Http3ErrorCode.H3_REQUEST_REJECTED : Http3ErrorCode.H3_REQUEST_CANCELLED);
  }

  @Override
  void failed(Throwable cause) {
    Http3Streams.streamFailed(ctx.channel(), cause); // resets the stream with an HTTP/3 error code
  }
}
