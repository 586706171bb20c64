package dev.loupe.bench.load;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * HTTP/2 driver: keeps {@code -m} streams in flight on one connection, a new stream opened as
 * soon as one ends. Built on {@link Http2ConnectionHandler} with a frame listener (no child
 * channels, no message aggregation): DATA is counted and returned to flow control at once,
 * stream and connection windows are 16 MiB. Per-stream state lives in three small arrays of
 * {@code -m} slots, so a request allocates nothing of its own beyond what the codec needs.
 * Event-loop confined.
 *
 * <p>The connection starts sending when the server's first SETTINGS arrives; GOAWAY stops new
 * streams, and the connection closes once its streams are done (the driver reconnects).
 */
final class Http2Exchanges extends ChannelInboundHandlerAdapter implements Exchanges, Http2FrameListener {
  private static final int WINDOW = 16 * 1024 * 1024;

  private final LoadConnection conn;
  private final int slots;
  private final int[] ids;
  private final long[] starts;
  private final int[] statuses;
  private final long[] bytes;
  private int inFlight;
  private boolean ready;
  private boolean goingAway;
  private Http2ConnectionHandler handler;
  private ChannelHandlerContext hctx;
  private final Http2Headers headers;

  private Http2Exchanges(LoadConnection conn) {
    this.conn = conn;
    this.slots = conn.options.streams;
    this.ids = new int[slots];
    this.starts = new long[slots];
    this.statuses = new int[slots];
    this.bytes = new long[slots];
    this.headers = conn.newHttp2Headers();
  }

  /** Adds the HTTP/2 codec and this driver to {@code p} (the channel may already be active). */
  static void install(ChannelPipeline p, LoadConnection conn) {
    Http2Exchanges ex = new Http2Exchanges(conn);
    Http2Settings settings = new Http2Settings().initialWindowSize(WINDOW).pushEnabled(false)
        .maxConcurrentStreams(0);
    ex.handler = new Http2ConnectionHandlerBuilder().server(false).frameListener(ex).initialSettings(settings)
        .validateHeaders(false).build();
    p.addLast(ex.handler);
    ex.hctx = p.context(ex.handler);
    p.addLast(ex);
  }

  private void fill() {
    boolean wrote = false;
    while (inFlight < slots && conn.clock.running() && !goingAway
        && handler.connection().local().canOpenStream()) {
      int id = handler.connection().local().incrementAndGetNextStreamId();
      if (id < 0) {
        goingAway = true;
        break;
      }
      int slot = freeSlot();
      ids[slot] = id;
      starts[slot] = System.nanoTime();
      statuses[slot] = 0;
      bytes[slot] = 0;
      inFlight++;
      ByteBuf body = conn.newRequestBody();
      handler.encoder().writeHeaders(hctx, id, headers, 0, body == null, hctx.voidPromise());
      if (body != null) {
        handler.encoder().writeData(hctx, id, body, 0, true, hctx.voidPromise());
      }
      wrote = true;
    }
    if (wrote) {
      handler.flush(hctx);
    }
    if (goingAway && inFlight == 0) {
      hctx.close();
    }
  }

  private int freeSlot() {
    for (int i = 0; i < slots; i++) {
      if (ids[i] == 0) {
        return i;
      }
    }
    throw new IllegalStateException("no free slot with " + inFlight + " in flight");
  }

  private int slotOf(int streamId) {
    for (int i = 0; i < slots; i++) {
      if (ids[i] == streamId) {
        return i;
      }
    }
    return -1;
  }

  private static int parseStatus(CharSequence st) {
    int code = 0;
    for (int i = 0; i < st.length(); i++) {
      char c = st.charAt(i);
      if (c < '0' || c > '9') {
        return 0;
      }
      code = code * 10 + (c - '0');
    }
    return code;
  }

  private void complete(int slot) {
    long s = starts[slot];
    ids[slot] = 0;
    inFlight--;
    conn.record(s, statuses[slot], bytes[slot]);
  }

  // --- Http2FrameListener

  @Override
  public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) throws Http2Exception {
    if (!ready) {
      ready = true;
      Http2Stream cs = handler.connection().connectionStream();
      handler.connection().local().flowController().incrementWindowSize(cs, WINDOW - 65_535);
    }
    fill();
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers h, int padding,
      boolean endOfStream) {
    int slot = slotOf(streamId);
    if (slot < 0) {
      return;
    }
    CharSequence st = h.status();
    int prev = statuses[slot];
    if (st != null && (prev == 0 || prev >= 100 && prev < 200)) {
      statuses[slot] = parseStatus(st);
    }
    if (endOfStream) {
      complete(slot);
      fill();
    }
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers h, int streamDependency,
      short weight, boolean exclusive, int padding, boolean endOfStream) {
    onHeadersRead(ctx, streamId, h, padding, endOfStream);
  }

  @Override
  public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding,
      boolean endOfStream) {
    int n = data.readableBytes();
    int slot = slotOf(streamId);
    if (slot >= 0) {
      bytes[slot] += n;
      if (endOfStream) {
        complete(slot);
        fill();
      }
    }
    return n + padding;
  }

  @Override
  public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
    int slot = slotOf(streamId);
    if (slot >= 0) {
      ids[slot] = 0;
      inFlight--;
      if (conn.clock.running()) {
        conn.stats.error(LoadStats.ErrorKind.RESET);
      }
      fill();
    }
  }

  @Override
  public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
    goingAway = true;
    for (int i = 0; i < slots; i++) {
      if (ids[i] > lastStreamId) {
        ids[i] = 0;
        inFlight--;
        if (conn.clock.running()) {
          conn.stats.error(LoadStats.ErrorKind.RESET);
        }
      }
    }
    if (inFlight == 0) {
      ctx.close();
    }
  }

  @Override
  public void onPriorityRead(ChannelHandlerContext ctx, int streamId, int streamDependency, short weight,
      boolean exclusive) {}

  @Override
  public void onSettingsAckRead(ChannelHandlerContext ctx) {}

  @Override
  public void onPingRead(ChannelHandlerContext ctx, long data) {}

  @Override
  public void onPingAckRead(ChannelHandlerContext ctx, long data) {}

  @Override
  public void onPushPromiseRead(ChannelHandlerContext ctx, int streamId, int promisedStreamId,
      Http2Headers h, int padding) {}

  @Override
  public void onWindowUpdateRead(ChannelHandlerContext ctx, int streamId, int windowSizeIncrement) {}

  @Override
  public void onUnknownFrame(ChannelHandlerContext ctx, byte frameType, int streamId, Http2Flags flags,
      ByteBuf payload) {}

  // --- channel events after the codec

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (inFlight > 0 && conn.clock.running()) {
      for (int i = 0; i < inFlight; i++) {
        conn.stats.error(LoadStats.ErrorKind.CLOSED);
      }
    }
    inFlight = 0;
    java.util.Arrays.fill(ids, 0);
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (conn.clock.running()) {
      conn.stats.error(LoadStats.ErrorKind.OTHER);
      conn.noteError(cause);
    }
    ctx.close();
  }

  @Override
  public int countStartedBefore(long nanoTime) {
    int n = 0;
    for (int i = 0; i < slots; i++) {
      if (ids[i] != 0 && starts[i] - nanoTime < 0) {
        n++;
      }
    }
    return n;
  }
}
