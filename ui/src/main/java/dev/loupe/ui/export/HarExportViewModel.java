package dev.loupe.ui.export;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.har.HarWriter;
import dev.loupe.ui.common.FxThread;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * Exports flows as a HAR file off the UI thread, with progress and cancel. The file is written
 * atomically ({@link HarWriter#writeAtomically}): a cancelled or failed export leaves an existing
 * file untouched and no partial file behind. One export at a time.
 */
public final class HarExportViewModel implements AutoCloseable {
  /** How an export ended. */
  public enum Outcome { NONE, RUNNING, DONE, CANCELLED, FAILED }

  private final FxThread fx;
  private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "loupe-har-export");
    t.setDaemon(true);
    return t;
  });
  private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper(this, "running");
  private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper(this, "progress");
  private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
  private final ReadOnlyObjectWrapper<Outcome> outcome = new ReadOnlyObjectWrapper<>(this, "outcome", Outcome.NONE);
  private volatile AtomicBoolean cancel = new AtomicBoolean();

  public HarExportViewModel(FxThread fx) {
    this.fx = fx;
  }

  public ReadOnlyBooleanProperty runningProperty() { return running.getReadOnlyProperty(); }

  /** 0..1 while running. */
  public ReadOnlyDoubleProperty progressProperty() { return progress.getReadOnlyProperty(); }

  /** "Writing 1,200 of 40,000 flows…", "Exported 40,000 flows (12 MiB) to …", or the error. */
  public ReadOnlyStringProperty messageProperty() { return message.getReadOnlyProperty(); }

  public ReadOnlyObjectProperty<Outcome> outcomeProperty() { return outcome.getReadOnlyProperty(); }

  /**
   * Starts writing {@code flows} (in this order) to {@code file}. Call on the UI thread; returns
   * false when an export is already running.
   */
  public boolean export(List<Flow> flows, Path file) {
    if (running.get()) {
      return false;
    }
    AtomicBoolean cancelled = new AtomicBoolean();
    cancel = cancelled;
    running.set(true);
    progress.set(0);
    outcome.set(Outcome.RUNNING);
    int total = flows.size();
    message.set(String.format("Writing %,d flows…", total));
    AtomicInteger done = new AtomicInteger();
    worker.execute(() -> {
      Iterable<Flow> counted = () -> new Iterator<>() {
        private final Iterator<Flow> it = flows.iterator();
        private long lastPost;

        @Override
        public boolean hasNext() {
          if (cancelled.get()) {
            throw new CancellationException();
          }
          return it.hasNext();
        }

        @Override
        public Flow next() {
          int n = done.incrementAndGet();
          long now = System.nanoTime();
          if (now - lastPost > 50_000_000L) { // at most 20 updates a second reach the UI
            lastPost = now;
            fx.post(() -> {
              if (running.get()) {
                progress.set(total == 0 ? 1 : (double) n / total);
                message.set(String.format("Writing %,d of %,d flows…", n, total));
              }
            });
          }
          return it.next();
        }
      };
      try {
        HarWriter.writeAtomically(counted, file);
        long bytes = java.nio.file.Files.size(file);
        fx.post(() -> finish(Outcome.DONE, String.format("Exported %,d flows (%s) to %s", total,
            dev.loupe.ui.flows.FlowRow.humanBytes(bytes), file)));
      } catch (CancellationException e) {
        fx.post(() -> finish(Outcome.CANCELLED, "Export cancelled; " + file.getFileName() + " was not written"));
      } catch (IOException | RuntimeException e) {
        String why = e.getMessage() == null ? e.toString() : e.getMessage();
        fx.post(() -> finish(Outcome.FAILED, "Export failed: " + why));
      }
    });
    return true;
  }

  /** Stops the running export; the target file is left as it was. */
  public void cancel() {
    cancel.set(true);
  }

  private void finish(Outcome how, String text) {
    running.set(false);
    if (how == Outcome.DONE) {
      progress.set(1);
    }
    message.set(text);
    outcome.set(how);
  }

  @Override
  public void close() {
    cancel();
    worker.shutdown();
  }
}
