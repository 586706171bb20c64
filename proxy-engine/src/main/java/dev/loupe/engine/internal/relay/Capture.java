package dev.loupe.engine.internal.relay;

import dev.loupe.engine.internal.record.RecordedBody;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/** The capture tap: copies body bytes passing through a leg into the flow (the body keeps at most its cap). */
final class Capture {
  /**
   * Reads a Netty buffer in place: {@code getBytes} into the body's chunks copies straight from a
   * direct buffer's memory, where an NIO view would cost a {@code DirectByteBuffer} (or two) per capture.
   */
  private static final RecordedBody.Bytes<ByteBuf> NETTY = new RecordedBody.Bytes<>() {
    @Override
    public void get(ByteBuf src, int index, byte[] dst, int dstIndex, int length) {
      src.getBytes(index, dst, dstIndex, length);
    }

    @Override
    public ByteBuffer view(ByteBuf src, int index, int length) {
      return src.nioBuffer(index, length);
    }
  };

  private Capture() {}

  /** Captures the readable bytes of {@code data} (its indexes are left unchanged). */
  static void append(RecordedBody body, ByteBuf data) {
    body.append(data, data.readerIndex(), data.readableBytes(), NETTY);
  }
}
