package dev.loupe.ui.diff;

import dev.loupe.engine.api.session.DiffInput;
import dev.loupe.engine.api.session.DiffJson;
import dev.loupe.engine.api.session.DiffMarkdown;
import dev.loupe.engine.api.session.DiffSummary;
import dev.loupe.engine.api.session.FlowDiff;
import dev.loupe.engine.api.session.SessionDiff;
import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.flow.Flow;
import dev.loupe.ui.common.FxThread;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import java.util.function.Predicate;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.collections.transformation.FilteredList;

/**
 * The model of a session diff window ({@link SessionDiffWindow}): runs {@link SessionDiff} over two
 * inputs on a background thread, lists its lines (changed, removed, added) with filters by kind,
 * by what changed and by URL text, loads a changed pair for the two-flow compare, and exports the
 * diff as JSON or Markdown (a fresh streamed run into the file, so exports are whole even when the
 * list stops at {@link #MAX_ROWS}).
 *
 * <p>UI thread only, but for the background work it starts; results come back through
 * {@link FxThread}. Closing it stops the diff and closes the inputs it opened.
 */
public final class SessionDiffViewModel implements AutoCloseable {
  /** Lines listed at most; a diff with more says so (the export has them all). */
  public static final int MAX_ROWS = 200_000;
  private static final int BATCH = 500;

  /** What the "changes" filter narrows changed flows to. */
  public enum AspectFilter {
    ANY("Any change"), STATUS("Status"), HEADERS("Headers"), BODY("Body"), WEBSOCKET("WebSocket messages"),
    TIMING("Time"), ERROR("Failure");

    private final String text;

    AspectFilter(String text) {
      this.text = text;
    }

    boolean test(FlowDiff d) {
      return switch (this) {
        case ANY -> true;
        case STATUS -> d.has(FlowDiff.Aspect.STATUS);
        case HEADERS -> d.has(FlowDiff.Aspect.REQUEST_HEADER) || d.has(FlowDiff.Aspect.RESPONSE_HEADER);
        case BODY -> d.has(FlowDiff.Aspect.REQUEST_BODY) || d.has(FlowDiff.Aspect.RESPONSE_BODY);
        case WEBSOCKET -> d.has(FlowDiff.Aspect.WEBSOCKET_COUNT) || d.has(FlowDiff.Aspect.WEBSOCKET_MESSAGE);
        case TIMING -> d.has(FlowDiff.Aspect.TIMING);
        case ERROR -> d.has(FlowDiff.Aspect.ERROR);
      };
    }

    @Override
    public String toString() {
      return text;
    }
  }

  private final DiffInput a;
  private final DiffInput b;
  private final String nameA;
  private final String nameB;
  private final DiffOptions options;
  private final FxThread fx;
  private final ExecutorService background;
  private final Path spoolDir;
  private final ObservableList<FlowDiff> rows = FXCollections.observableArrayList();
  private final FilteredList<FlowDiff> shown = new FilteredList<>(rows);
  private final BooleanProperty showChanged = new SimpleBooleanProperty(this, "showChanged", true);
  private final BooleanProperty showRemoved = new SimpleBooleanProperty(this, "showRemoved", true);
  private final BooleanProperty showAdded = new SimpleBooleanProperty(this, "showAdded", true);
  private final ObjectProperty<AspectFilter> aspect = new SimpleObjectProperty<>(this, "aspect", AspectFilter.ANY);
  private final StringProperty text = new SimpleStringProperty(this, "text", "");
  private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(this, "status", "");
  private final ReadOnlyObjectWrapper<DiffSummary> summary = new ReadOnlyObjectWrapper<>(this, "summary");
  private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper(this, "running");
  private volatile boolean closed;

  /**
   * @param nameA    how side A is called ("Current session", a file name)
   * @param spoolDir where a Markdown export keeps its sections while it is written
   */
  public SessionDiffViewModel(DiffInput a, String nameA, DiffInput b, String nameB, DiffOptions options, FxThread fx,
      ExecutorService background, Path spoolDir) {
    this.a = a;
    this.b = b;
    this.nameA = nameA;
    this.nameB = nameB;
    this.options = options;
    this.fx = fx;
    this.background = background;
    this.spoolDir = spoolDir;
    showChanged.addListener(o -> refilter());
    showRemoved.addListener(o -> refilter());
    showAdded.addListener(o -> refilter());
    aspect.addListener(o -> refilter());
    text.addListener(o -> refilter());
  }

  /** Starts the diff; lines appear in {@link #rows()} in batches as it runs. */
  public void start() {
    running.set(true);
    status.set("Comparing " + nameA + " with " + nameB + "…");
    background.execute(() -> {
      List<FlowDiff> batch = new ArrayList<>(BATCH);
      long[] listed = {0};
      try {
        DiffSummary s = SessionDiff.run(a.session(), b.session(), options, d -> {
          if (listed[0] < MAX_ROWS) {
            listed[0]++;
            batch.add(d);
            if (batch.size() >= BATCH) {
              List<FlowDiff> out = List.copyOf(batch);
              batch.clear();
              fx.post(() -> rows.addAll(out));
            }
          }
        }, () -> closed);
        List<FlowDiff> rest = List.copyOf(batch);
        fx.post(() -> {
          rows.addAll(rest);
          summary.set(s);
          running.set(false);
          long all = s.added() + s.removed() + s.changed();
          status.set(describe(s) + (all > listed[0] ? "; the first " + listed[0] + " are listed (export for all)" : ""));
        });
      } catch (CancellationException stopped) {
        // the window closed
      } catch (SessionException | IOException | RuntimeException e) {
        String why = e.getMessage() == null ? e.toString() : e.getMessage();
        fx.post(() -> {
          running.set(false);
          status.set("The comparison failed: " + why);
        });
      }
    });
  }

  /** "3 changed, 1 removed, 2 added, 40 unchanged (A: 44 flows, B: 45 flows)". */
  static String describe(DiffSummary s) {
    if (!s.differs()) {
      return "No differences: " + s.unchanged() + " flows match (A: " + s.flowsA() + " flows, B: " + s.flowsB() + ")";
    }
    return s.changed() + " changed, " + s.removed() + " removed, " + s.added() + " added, " + s.unchanged()
        + " unchanged (A: " + s.flowsA() + " flows, B: " + s.flowsB() + " flows)";
  }

  private void refilter() {
    boolean c = showChanged.get();
    boolean r = showRemoved.get();
    boolean ad = showAdded.get();
    AspectFilter by = aspect.get() == null ? AspectFilter.ANY : aspect.get();
    String needle = text.get() == null ? "" : text.get().trim().toLowerCase(Locale.ROOT);
    Predicate<FlowDiff> p = d -> switch (d.kind()) {
      case CHANGED -> c && by.test(d);
      case REMOVED -> r && by == AspectFilter.ANY;
      case ADDED -> ad && by == AspectFilter.ANY;
    } && (needle.isEmpty() || (d.either().method() + " " + d.either().url()).toLowerCase(Locale.ROOT).contains(needle)
        || (d.b() != null && d.b().url().toLowerCase(Locale.ROOT).contains(needle)));
    shown.setPredicate(p);
  }

  /** Every line found so far (at most {@link #MAX_ROWS}). */
  public ObservableList<FlowDiff> rows() {
    return rows;
  }

  /** The lines the filters let through. */
  public ObservableList<FlowDiff> shown() {
    return shown;
  }

  public BooleanProperty showChangedProperty() {
    return showChanged;
  }

  public BooleanProperty showRemovedProperty() {
    return showRemoved;
  }

  public BooleanProperty showAddedProperty() {
    return showAdded;
  }

  /** Changed flows shown only when this changed (added and removed ones only with {@link AspectFilter#ANY}). */
  public ObjectProperty<AspectFilter> aspectProperty() {
    return aspect;
  }

  /** Text the method and URL must contain (case-insensitive). */
  public StringProperty textProperty() {
    return text;
  }

  /** What the diff is doing, or its counts when done. */
  public ReadOnlyStringProperty statusProperty() {
    return status.getReadOnlyProperty();
  }

  /** The counts, once the diff is done. */
  public ReadOnlyObjectProperty<DiffSummary> summaryProperty() {
    return summary.getReadOnlyProperty();
  }

  public ReadOnlyBooleanProperty runningProperty() {
    return running.getReadOnlyProperty();
  }

  public String nameA() {
    return nameA;
  }

  public String nameB() {
    return nameB;
  }

  public DiffOptions options() {
    return options;
  }

  /** Loads both flows of a changed line (off the UI thread); the future completes off it too. */
  public CompletableFuture<Flow[]> pair(FlowDiff d) {
    if (d.kind() != FlowDiff.Kind.CHANGED) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("only changed flows have a pair"));
    }
    return CompletableFuture.supplyAsync(() -> {
      try {
        Flow left = a.session().load(d.a().id());
        Flow right = b.session().load(d.b().id());
        if (left == null || right == null) {
          throw new IllegalStateException("flow #" + (left == null ? d.a().id() + " is no longer in " + nameA
              : d.b().id() + " is no longer in " + nameB));
        }
        return new Flow[] {left, right};
      } catch (SessionException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    }, background);
  }

  /**
   * Writes the whole diff to {@code file} (JSON or Markdown), replacing it atomically, off the UI
   * thread; {@code done} is told a sentence on the UI thread.
   */
  public void export(Path file, boolean json, Consumer<String> done) {
    background.execute(() -> {
      Path work = file.toAbsolutePath().resolveSibling("." + file.getFileName() + ".writing");
      try {
        DiffSummary s;
        try (OutputStream out = Files.newOutputStream(work)) {
          if (json) {
            try (DiffJson sink = new DiffJson(out, nameA, nameB, options, true)) {
              s = SessionDiff.run(a.session(), b.session(), options, sink, () -> closed);
            }
          } else {
            Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
            try (DiffMarkdown sink = new DiffMarkdown(w, nameA, nameB, options, spoolDir)) {
              s = SessionDiff.run(a.session(), b.session(), options, sink, () -> closed);
            }
            w.flush();
          }
        }
        try {
          Files.move(work, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(work, file, StandardCopyOption.REPLACE_EXISTING);
        }
        String sentence = "Exported the diff (" + (s.added() + s.removed() + s.changed()) + " lines) to " + file;
        fx.post(() -> done.accept(sentence));
      } catch (CancellationException stopped) {
        deleteQuietly(work);
      } catch (SessionException | IOException | RuntimeException e) {
        deleteQuietly(work);
        String why = "Cannot export to " + file + ": " + (e.getMessage() == null ? e.toString() : e.getMessage());
        fx.post(() -> done.accept(why));
      }
    });
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException ignored) {
      // a partial export next to the target; the next export replaces it
    }
  }

  /** Stops the diff and closes the inputs (a session already open stays open). */
  @Override
  public void close() {
    closed = true;
    background.execute(() -> {
      a.close();
      b.close();
    });
    background.shutdown();
  }
}
