package dev.loupe.testing;

import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak detector, recording every report so {@link LeakDetectionExtension} can fail the
 * test that leaked. Installed with {@code -Dio.netty.customResourceLeakDetector=} this class (see
 * the parent POM's test argLine).
 */
public final class RecordingLeakDetector<T> extends ResourceLeakDetector<T> {
  private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

  public RecordingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
    super(resourceType, samplingInterval, maxActive);
  }

  public RecordingLeakDetector(Class<?> resourceType, int samplingInterval) {
    super(resourceType, samplingInterval);
  }

  @Override
  protected void reportTracedLeak(String resourceType, String records) {
    LEAKS.add("LEAK: " + resourceType + records);
    super.reportTracedLeak(resourceType, records);
  }

  @Override
  protected void reportUntracedLeak(String resourceType) {
    LEAKS.add("LEAK: " + resourceType + " (untraced)");
    super.reportUntracedLeak(resourceType);
  }

  /** Reports collected so far, cleared by the call. */
  public static List<String> drain() {
    List<String> out = List.copyOf(LEAKS);
    LEAKS.clear();
    return out;
  }
}
