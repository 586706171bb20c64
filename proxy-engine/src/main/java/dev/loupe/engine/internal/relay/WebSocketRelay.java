package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.engine.internal.exchange.Exchange;
import dev.loupe.engine.internal.exchange.ExchangeEvent;
import dev.loupe.engine.internal.record.RecordedFlow;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.time.Instant;

/**
 * Relays WebSocket frames read on one leg to the other after a 101, recording every message
 * (fragments joined; payload kept up to the capture cap) with its direction, opcode and time, and
 * the first close code. Frames are forwarded as the decoder produced them; the encoder on the other
 * leg re-frames (and masks, towards the origin).
 */
final class WebSocketRelay extends PeerRelay {
  private final EngineContext engine;
  private final Exchange exchange;
  private final RecordedFlow flow;
  private final WebSocketMessage.Direction direction;
  private ChannelHandlerContext ctx;

  private int messageOpcode = -1;
  private ByteArrayOutputStream messageBytes;
  private long messageLength;

  WebSocketRelay(EngineContext engine, Exchange exchange, WebSocketMessage.Direction direction, Channel peer) {
    super(peer);
    this.engine = engine;
    this.exchange = exchange;
    this.flow = exchange.flow();
    this.direction = direction;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  void start() {
    ctx.channel().read();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof WebSocketFrame frame)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    record(frame);
    peer.write(frame, peer.voidPromise());
  }

  private void record(WebSocketFrame frame) {
    int cap = engine.config().capture().memoryCap();
    if (frame instanceof CloseWebSocketFrame close) {
      flow.webSocketClosed(close.statusCode(), close.reasonText());
      add(WebSocketMessage.CLOSE, copy(frame.content(), cap), frame.content().readableBytes());
      return;
    }
    if (frame instanceof PingWebSocketFrame || frame instanceof PongWebSocketFrame) {
      int op = frame instanceof PingWebSocketFrame ? WebSocketMessage.PING : WebSocketMessage.PONG;
      add(op, copy(frame.content(), cap), frame.content().readableBytes());
      return;
    }
    if (!(frame instanceof ContinuationWebSocketFrame)) {
      messageOpcode = frame instanceof TextWebSocketFrame ? WebSocketMessage.TEXT
          : frame instanceof BinaryWebSocketFrame ? WebSocketMessage.BINARY : 0;
      messageBytes = new ByteArrayOutputStream();
      messageLength = 0;
    }
    if (messageBytes == null) {
      return; // continuation without a start: the decoder would have failed; be safe
    }
    ByteBuf c = frame.content();
    int room = (int) Math.max(0, cap - messageBytes.size());
    int take = Math.min(room, c.readableBytes());
    if (take > 0) {
      byte[] b = new byte[take];
      c.getBytes(c.readerIndex(), b);
      messageBytes.write(b, 0, take);
    }
    messageLength += c.readableBytes();
    if (frame.isFinalFragment()) {
      add(messageOpcode, messageBytes.toByteArray(), messageLength);
      messageBytes = null;
    }
  }

  private void add(int opcode, byte[] payload, long length) {
    flow.addWebSocketMessage(new WebSocketMessage(direction, opcode, payload, length, Instant.now()));
    engine.store().updated(flow);
  }

  private static byte[] copy(ByteBuf b, int cap) {
    byte[] out = new byte[Math.min(cap, b.readableBytes())];
    b.getBytes(b.readerIndex(), out);
    return out;
  }

  @Override
  protected void bothClosed() {
    exchange.on(new ExchangeEvent.TunnelClosed());
  }
}
