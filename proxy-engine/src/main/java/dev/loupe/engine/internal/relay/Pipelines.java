package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.internal.protocol.http1.ClientSideCodec;
import dev.loupe.engine.internal.protocol.http1.CompactHttpHeaders;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;

/** Handler names and factories shared by the legs. */
final class Pipelines {
  static final String HTTP_SERVER_CODEC = "http-server-codec";
  static final String CLIENT_LEG = "client-leg";
  static final String SNIFFER = "tls-sniffer";
  static final String SNI = "sni";
  static final String ALPN = "alpn";
  static final int WEBSOCKET_MAX_FRAME = 64 << 20;
  /** The HTTP/2 client connection preface (RFC 9113 §3.4). */
  static final byte[] HTTP2_PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /**
   * How many readable bytes of {@code buf} match the start of the HTTP/2 preface (at most its
   * length), or -1 when they differ from it.
   */
  static int http2PrefaceMatch(io.netty.buffer.ByteBuf buf) {
    int n = Math.min(buf.readableBytes(), HTTP2_PREFACE.length);
    for (int i = 0; i < n; i++) {
      if (buf.getByte(buf.readerIndex() + i) != HTTP2_PREFACE[i]) {
        return -1;
      }
    }
    return n;
  }

  private Pipelines() {}

  /** The client leg's HTTP/1 codec: Netty's {@code HttpServerCodec}, plain request heads read by Loupe. */
  static ClientSideCodec serverCodec(EngineConfig.Limits limits) {
    return new ClientSideCodec(new HttpDecoderConfig()
        .setMaxInitialLineLength(limits.maxInitialLineLength())
        .setMaxHeaderSize(limits.maxHeaderSize())
        .setMaxChunkSize(limits.maxChunkSize())
        .setAllowDuplicateContentLengths(false)
        .setAllowPartialChunks(true)
        .setStrictLineParsing(true)
        .setUseRfc9112TransferEncoding(true)
        .setHeadersFactory(CompactHttpHeaders.HEADERS)
        .setTrailersFactory(CompactHttpHeaders.TRAILERS));
  }

  static WebSocketDecoderConfig webSocketDecoder(boolean expectMasked) {
    return WebSocketDecoderConfig.newBuilder()
        .expectMaskedFrames(expectMasked)
        .allowMaskMismatch(false)
        .allowExtensions(true)
        .maxFramePayloadLength(WEBSOCKET_MAX_FRAME)
        .closeOnProtocolViolation(true)
        .build();
  }

  /**
   * Asks {@code ch} for more. A QUIC stream is asked once the loop has worked through the datagrams
   * it has in hand: a read pending while they are fed to QUIC takes each packet's ~1.2 KB on its own
   * (one event, one forward, one flush per packet); asked after them, one read takes all they
   * carried. Measured on 64 MiB bodies: 44,000-59,000 reads (1.1-1.5 KB each) before, 3,800-10,200
   * (6.5-17.6 KB each) after.
   */
  static void readSoon(io.netty.channel.Channel ch) {
    if (ch instanceof io.netty.handler.codec.quic.QuicStreamChannel) {
      ch.eventLoop().execute(ch::read);
    } else {
      ch.read();
    }
  }
}
