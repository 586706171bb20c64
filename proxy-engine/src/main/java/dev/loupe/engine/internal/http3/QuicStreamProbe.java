package dev.loupe.engine.internal.http3;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamResetException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * Asks quiche whether the peer reset a QUIC stream that nobody is reading.
 *
 * <p>Netty's QUIC stream learns of a RESET_STREAM only by reading: quiche reports the reset as
 * the result of {@code stream_recv}, and Netty calls it only while a read is pending. A leg that
 * paused reading for backpressure (its peer on the other side cannot take more) therefore never
 * sees the reset, and the exchange waits for a peer that is gone. This probe calls quiche's
 * {@code stream_recv} with an <em>empty</em> buffer: it consumes nothing (no data, and a pending
 * FIN stays for the next real read), but a reset comes back as its error — quiche checks for one
 * before copying any data (see {@code RecvBuf::emit}).
 *
 * <p>Netty keeps {@code streamRecv} package-private, so it is reached reflectively; if that fails
 * (a Netty upgrade), the probe answers "no reset" and a paused stream's reset is seen once reading
 * resumes, as before.
 *
 * <p>Call on the stream's event loop, only while the stream is active and its output not shut
 * down (with the send side complete, quiche may collect a stream whose FIN a probe saw).
 */
public final class QuicStreamProbe {
  private static final Method RECV = find();

  private QuicStreamProbe() {}

  private static Method find() {
    try {
      Method m = Class.forName("io.netty.handler.codec.quic.QuicheQuicChannel")
          .getDeclaredMethod("streamRecv", long.class, ByteBuf.class);
      m.setAccessible(true);
      return m;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /** Whether the probe can work here (Netty's internals as expected). */
  public static boolean available() {
    return RECV != null;
  }

  /** The peer's reset of {@code stream}'s receiving side, or null if it was not reset (or cannot be told). */
  public static QuicStreamResetException resetOf(QuicStreamChannel stream) {
    if (RECV == null || !stream.isActive() || stream.isInputShutdown() || stream.isOutputShutdown()) {
      return null;
    }
    // A real, non-null address with no room: quiche reads zero bytes into it.
    ByteBuf none = stream.alloc().directBuffer(1);
    try {
      none.writerIndex(none.capacity());
      RECV.invoke(stream.parent(), stream.streamId(), none);
      return null;
    } catch (InvocationTargetException e) {
      return e.getCause() instanceof QuicStreamResetException reset ? reset : null;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    } finally {
      none.release();
    }
  }
}
