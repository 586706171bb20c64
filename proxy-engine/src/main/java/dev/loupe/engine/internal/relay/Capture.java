package dev.loupe.engine.internal.relay;

import dev.loupe.engine.internal.record.RecordedBody;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/** The capture tap: copies body bytes passing through a leg into the flow (the body keeps at most its cap). */
final class Capture {
  private Capture() {}

  static void append(RecordedBody body, ByteBuf data) {
    if (data.nioBufferCount() == 1) {
      body.append(data.nioBuffer());
    } else {
      for (ByteBuffer b : data.nioBuffers()) {
        body.append(b);
      }
    }
  }
}
