package dev.loupe.engine.internal.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;

/**
 * Checks a client's HTTP/2 frames before Netty's codec decodes them, for the two abuses the codec
 * lets through. It reads frame headers only, forwards the bytes untouched, and on a violation drops
 * the rest and hands the codec a connection error (which answers GOAWAY and closes).
 *
 * <h3>Stream identifiers (RFC 9113 §5.1.1)</h3>
 * A new stream's id must exceed every id the client used before. Netty answers a HEADERS frame on
 * a closed or skipped-over id with RST_STREAM STREAM_CLOSED (a stream error) and keeps the
 * connection; the RFC says connection error PROTOCOL_ERROR. So a HEADERS frame for an odd id that
 * is not an open stream and not above the last stream the client opened ends the connection,
 * except for an id whose stream Loupe itself reset while the client was still sending (the client
 * may not yet know, and trailers may be on the way: Netty's stream error is right for those).
 *
 * <h3>SETTINGS floods</h3>
 * Every SETTINGS frame costs a parse, an acknowledgement and settings churn; a client sends a
 * handful per connection. More than {@value #MAX_SETTINGS_PER_WINDOW} in
 * {@value #WINDOW_SECONDS} s ends the connection with ENHANCE_YOUR_CALM, as Netty's own limits
 * do for RST_STREAM and CONTINUATION floods (see {@link Http2Codecs}).
 *
 * <h3>Buffers and ordering</h3>
 * Bytes ahead of a HEADERS frame are forwarded before it is checked, so the codec's stream state is
 * current when the check reads it (a read holding a stream's end and its reuse is judged right).
 * Only HEADERS frames split a read. Event-loop confined, like the pipeline it sits in.
 */
final class Http2InboundFrameGuard extends ChannelInboundHandlerAdapter {
  static final int MAX_SETTINGS_PER_WINDOW = 100;
  static final int WINDOW_SECONDS = 10;
  private static final int FRAME_HEADER = 9;
  private static final int TYPE_HEADERS = 0x1;
  private static final int TYPE_SETTINGS = 0x4;
  private static final int FLAG_ACK = 0x1;
  /** How many ids of streams reset while the client was still sending are remembered. */
  private static final int RECENT_RESETS = 256;

  private final Http2Connection connection;
  /** Preface bytes still to skip (the codec checks them). */
  private int prefaceLeft;
  private final byte[] header = new byte[FRAME_HEADER];
  private int headerFilled;
  private long payloadLeft;
  private boolean failed;
  private long windowStart = System.nanoTime();
  private int settingsInWindow;
  /** Ring of stream ids closed while the client's side was still open. */
  private final int[] recentResets = new int[RECENT_RESETS];
  private int recentResetCount;

  /** Set on a stream once the client ended its side (END_STREAM). */
  private final Http2Connection.PropertyKey remoteEnded;

  /**
   * @param connection      the codec's connection (its streams are checked)
   * @param expectPreface   true when the client preface has not been read from this channel yet
   */
  Http2InboundFrameGuard(Http2Connection connection, boolean expectPreface) {
    this.connection = connection;
    this.prefaceLeft = expectPreface ? Pipelines.HTTP2_PREFACE.length : 0;
    this.remoteEnded = connection.newKey();
    connection.addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamActive(Http2Stream stream) {
        onStreamHalfClosed(stream); // a stream opened with END_STREAM starts half-closed
      }

      @Override
      public void onStreamHalfClosed(Http2Stream stream) {
        if (stream.state() == Http2Stream.State.HALF_CLOSED_REMOTE) {
          stream.setProperty(remoteEnded, Boolean.TRUE);
        }
      }

      @Override
      public void onStreamClosed(Http2Stream stream) {
        if (stream.getProperty(remoteEnded) == null) {
          // Closed before the client ended its side: a reset (by either peer). Frames the client
          // already sent for it are late, not a protocol violation.
          recentResets[recentResetCount++ % RECENT_RESETS] = stream.id();
        }
      }
    });
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (!(msg instanceof ByteBuf in)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (failed) {
      in.release();
      return;
    }
    int start = in.readerIndex();
    int end = in.writerIndex();
    int i = start;
    while (i < end) {
      if (prefaceLeft > 0) {
        int n = Math.min(prefaceLeft, end - i);
        prefaceLeft -= n;
        i += n;
        continue;
      }
      if (payloadLeft > 0) {
        int n = (int) Math.min(payloadLeft, end - i);
        payloadLeft -= n;
        i += n;
        continue;
      }
      int n = Math.min(FRAME_HEADER - headerFilled, end - i);
      in.getBytes(i, header, headerFilled, n);
      headerFilled += n;
      i += n;
      if (headerFilled < FRAME_HEADER) {
        break;
      }
      headerFilled = 0;
      payloadLeft = (header[0] & 0xffL) << 16 | (header[1] & 0xff) << 8 | (header[2] & 0xff);
      int type = header[3] & 0xff;
      int flags = header[4] & 0xff;
      int streamId = ((header[5] & 0x7f) << 24) | ((header[6] & 0xff) << 16) | ((header[7] & 0xff) << 8)
          | (header[8] & 0xff);
      String violation = null;
      Http2Error error = Http2Error.PROTOCOL_ERROR;
      if (type == TYPE_HEADERS && (streamId & 1) == 1) {
        int frameStart = i - FRAME_HEADER;
        if (frameStart > start) {
          // Let the codec catch up first: its stream state must include every earlier frame.
          ctx.fireChannelRead(in.retainedSlice(start, frameStart - start));
          start = frameStart;
          if (failed || !ctx.channel().isActive()) {
            in.release();
            return;
          }
        }
        violation = streamIdViolation(streamId);
      } else if (type == TYPE_SETTINGS && (flags & FLAG_ACK) == 0 && streamId == 0) {
        long now = System.nanoTime();
        if (now - windowStart > TimeUnit.SECONDS.toNanos(WINDOW_SECONDS)) {
          windowStart = now;
          settingsInWindow = 0;
        }
        if (++settingsInWindow > MAX_SETTINGS_PER_WINDOW) {
          violation = "more than " + MAX_SETTINGS_PER_WINDOW + " SETTINGS frames in " + WINDOW_SECONDS + " s";
          error = Http2Error.ENHANCE_YOUR_CALM;
        }
      }
      if (violation != null) {
        failed = true;
        int frameStart = Math.max(start, i - FRAME_HEADER);
        if (frameStart > start) {
          ctx.fireChannelRead(in.retainedSlice(start, frameStart - start));
        }
        in.release();
        // NO_SHUTDOWN (not Netty's default HARD_SHUTDOWN): the GOAWAY names the last stream really
        // accepted instead of 2^31-1, then the codec closes the connection.
        ctx.fireExceptionCaught(new Http2Exception(error, violation, Http2Exception.ShutdownHint.NO_SHUTDOWN));
        return;
      }
    }
    if (start == in.readerIndex()) {
      ctx.fireChannelRead(in);
    } else {
      ctx.fireChannelRead(in.retainedSlice(start, end - start));
      ReferenceCountUtil.release(in);
    }
  }

  /** Why a HEADERS frame on client stream {@code id} may not open or continue a stream, or null. */
  private String streamIdViolation(int id) {
    if (connection.stream(id) != null) {
      return null; // trailers on an open stream
    }
    int last = connection.remote().lastStreamCreated();
    if (id > last) {
      return null; // a new stream
    }
    for (int k = 0; k < Math.min(recentResetCount, RECENT_RESETS); k++) {
      if (recentResets[k] == id) {
        return null; // late frames for a stream that was reset: the codec's stream error fits
      }
    }
    return "HEADERS on stream " + id + ", which is not above stream " + last
        + " that the client already opened: stream ids may not be reused or go down (RFC 9113 §5.1.1)";
  }
}
