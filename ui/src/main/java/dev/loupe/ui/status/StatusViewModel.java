package dev.loupe.ui.status;

import dev.loupe.engine.flow.FlowStore;
import dev.loupe.ui.common.FxThread;
import dev.loupe.ui.flows.FlowRow;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.StringProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The status bar's model: where Loupe listens, memory in use (JVM heap and what captured bodies
 * hold), and live throughput — requests and bytes per second now, plus the last
 * {@value #HISTORY} seconds of requests per second for the sparkline. {@link #tick} runs once a
 * second on the UI thread.
 */
public final class StatusViewModel implements AutoCloseable {
  /** Seconds of history the sparkline shows. */
  public static final int HISTORY = 60;

  private final FlowStore store;
  private final ThroughputMeter meter;
  private final LongSupplier heapUsed;
  private final LongSupplier heapMax;
  private final StringProperty listening = new SimpleStringProperty(this, "listening", "");
  private final ReadOnlyStringWrapper memory = new ReadOnlyStringWrapper(this, "memory", "");
  private final ReadOnlyStringWrapper throughput = new ReadOnlyStringWrapper(this, "throughput", "");
  private final ObservableList<Double> requestsPerSecond = FXCollections.observableArrayList();
  private ScheduledExecutorService ticker;
  private long lastTick;

  /** With the JVM's own heap figures. */
  public StatusViewModel(FlowStore store, String listening) {
    this(store, listening, () -> {
      Runtime rt = Runtime.getRuntime();
      return rt.totalMemory() - rt.freeMemory();
    }, () -> Runtime.getRuntime().maxMemory());
  }

  StatusViewModel(FlowStore store, String listening, LongSupplier heapUsed, LongSupplier heapMax) {
    this.store = store;
    this.meter = new ThroughputMeter(store);
    this.heapUsed = heapUsed;
    this.heapMax = heapMax;
    this.listening.set(listening);
    for (int i = 0; i < HISTORY; i++) {
      requestsPerSecond.add(0.0);
    }
    lastTick = System.nanoTime();
    updateMemory();
    throughput.set(format(0, 0));
  }

  /** Ticks once a second on {@code fx} until closed. */
  public StatusViewModel start(FxThread fx) {
    ticker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "loupe-ui-status");
      t.setDaemon(true);
      return t;
    });
    ticker.scheduleAtFixedRate(() -> fx.post(this::tick), 1, 1, TimeUnit.SECONDS);
    return this;
  }

  /** "127.0.0.1:8080"; the settings change it when the proxy moves. */
  public StringProperty listeningProperty() {
    return listening;
  }

  /** "Heap 212 MiB of 4.0 GiB · bodies 35 MiB". */
  public ReadOnlyStringProperty memoryProperty() {
    return memory.getReadOnlyProperty();
  }

  /** "120 req/s · 3.4 MiB/s" over the last second. */
  public ReadOnlyStringProperty throughputProperty() {
    return throughput.getReadOnlyProperty();
  }

  /** Requests per second, oldest first, {@value #HISTORY} values. */
  public ObservableList<Double> requestsPerSecond() {
    return FXCollections.unmodifiableObservableList(requestsPerSecond);
  }

  /** One sample: reads the meter and the heap (UI thread). */
  public void tick() {
    long now = System.nanoTime();
    double seconds = Math.max(1e-3, (now - lastTick) / 1e9);
    lastTick = now;
    ThroughputMeter.Sample s = meter.take();
    double rps = s.flows() / seconds;
    double bps = s.bytes() / seconds;
    requestsPerSecond.remove(0);
    requestsPerSecond.add(rps);
    throughput.set(format(rps, bps));
    updateMemory();
  }

  private void updateMemory() {
    memory.set("Heap " + FlowRow.humanBytes(heapUsed.getAsLong()) + " of " + FlowRow.humanBytes(heapMax.getAsLong())
        + " · bodies " + FlowRow.humanBytes(store.heapBytes()));
  }

  private static String format(double rps, double bytesPerSecond) {
    String r = rps >= 10 || rps == 0 ? String.format(Locale.ROOT, "%.0f", rps) : String.format(Locale.ROOT, "%.1f", rps);
    return r + " req/s · " + FlowRow.humanBytes((long) bytesPerSecond) + "/s";
  }

  /** The meter, for tests that wait for it. */
  ThroughputMeter meter() {
    return meter;
  }

  @Override
  public void close() {
    if (ticker != null) {
      ticker.shutdownNow();
    }
    meter.close();
  }
}
