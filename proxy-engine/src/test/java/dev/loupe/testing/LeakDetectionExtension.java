package dev.loupe.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reported a leaked buffer while it ran. Registered for every test
 * through {@code META-INF/services} (JUnit extension auto-detection is on in the parent POM), so a
 * leak report is a failing test, not a log line nobody reads.
 */
public final class LeakDetectionExtension implements AfterAllCallback {
  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    // Leaks are found when a tracked buffer is collected and a later allocation polls the queue.
    for (int i = 0; i < 5; i++) {
      System.gc();
      System.runFinalization();
      Thread.sleep(50);
      for (ByteBufAllocator a : new ByteBufAllocator[] {
          ByteBufAllocator.DEFAULT, PooledByteBufAllocator.DEFAULT, UnpooledByteBufAllocator.DEFAULT}) {
        ByteBuf b = a.directBuffer(1);
        b.release();
        b = a.heapBuffer(1);
        b.release();
      }
    }
    List<String> leaks = RecordingLeakDetector.drain();
    if (!leaks.isEmpty()) {
      throw new AssertionError(leaks.size() + " Netty buffer leak(s) in " + context.getDisplayName()
          + ":\n" + String.join("\n\n", leaks));
    }
  }
}
