package dev.loupe.ui.intercept;

import dev.loupe.engine.api.intercept.InterceptList;
import dev.loupe.ui.common.FxThread;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The rules or the breakpoints as the rules window shows them: an observable copy of an {@link
 * InterceptList} and the list's on/off switch, with the window's commands. Every command changes the
 * service's list (which validates, persists and tells the engine), then refreshes the copy; changes
 * made elsewhere (the control API) arrive through the list's listener and are applied on the UI
 * thread. Commands return null when done, else the problem to show (the list is then unchanged),
 * which also goes to {@link #messageProperty()}. UI thread only.
 *
 * @param <T> {@link dev.loupe.engine.api.intercept.Rule} or {@link dev.loupe.engine.api.intercept.Breakpoint}
 */
public final class InterceptListModel<T extends InterceptList.Entry> implements AutoCloseable {
  private final InterceptList<T> list;
  private final ObservableList<T> entries = FXCollections.observableArrayList();
  /** One wrapper for every caller: a wrapper only forwards changes while something holds it. */
  private final ObservableList<T> readOnly = FXCollections.unmodifiableObservableList(entries);
  private final BooleanProperty active = new SimpleBooleanProperty(this, "active");
  private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
  private final AutoCloseable subscription;
  private final String noun;

  /** {@code noun}: what an entry is called in messages ("rule", "breakpoint"). */
  public InterceptListModel(InterceptList<T> list, FxThread fx, String noun) {
    this.list = list;
    this.noun = noun;
    refresh();
    active.addListener((o, was, on) -> list.active(on));
    subscription = list.subscribe(() -> fx.post(this::refresh));
  }

  /** The entries in order (UI thread; read-only: change them with the commands). */
  public ObservableList<T> entries() {
    return readOnly;
  }

  /** The whole list's switch (the toolbar's "Breakpoints", the rules window's "Rules on"). */
  public BooleanProperty activeProperty() {
    return active;
  }

  /** The outcome of the last command: a problem, or what was done ("Imported 3 rules"). */
  public ReadOnlyStringProperty messageProperty() {
    return message.getReadOnlyProperty();
  }

  /** The underlying list. */
  public InterceptList<T> list() {
    return list;
  }

  /** Re-reads the list (the service's changes arrive here by themselves). */
  public void refresh() {
    List<T> now = list.entries();
    if (sameIds(now)) {
      // in place, so a table keeps its selection when an entry is switched on or off or edited
      for (int i = 0; i < now.size(); i++) {
        if (!now.get(i).equals(entries.get(i))) {
          entries.set(i, now.get(i));
        }
      }
    } else {
      entries.setAll(now);
    }
    active.set(list.active());
  }

  private boolean sameIds(List<T> now) {
    if (now.size() != entries.size()) {
      return false;
    }
    for (int i = 0; i < now.size(); i++) {
      if (!now.get(i).id().equals(entries.get(i).id())) {
        return false;
      }
    }
    return true;
  }

  public String add(T entry) {
    return run(() -> list.add(entry), null);
  }

  /** Replaces the entry with {@code entry}'s id. */
  public String update(T entry) {
    return run(() -> list.update(entry), null);
  }

  public String remove(String id) {
    return run(() -> list.remove(id), null);
  }

  public String enable(String id, boolean on) {
    return run(() -> list.enable(id, on), null);
  }

  /** Moves the entry to {@code index} (clamped). */
  public String move(String id, int index) {
    return run(() -> list.move(id, index), null);
  }

  /** One place up (no-op at the top). */
  public String moveUp(String id) {
    int i = indexOf(id);
    return i <= 0 ? null : move(id, i - 1);
  }

  /** One place down (no-op at the bottom). */
  public String moveDown(String id) {
    int i = indexOf(id);
    return i < 0 || i >= entries.size() - 1 ? null : move(id, i + 1);
  }

  /** Inserts {@code copy.apply(entry)} (which must have a new id) right after the entry. */
  public String duplicate(String id, UnaryOperator<T> copy) {
    int i = indexOf(id);
    if (i < 0) {
      return fail("No entry " + id);
    }
    List<T> next = new ArrayList<>(entries);
    next.add(i + 1, copy.apply(entries.get(i)));
    return run(() -> list.replace(next), null);
  }

  public int indexOf(String id) {
    for (int i = 0; i < entries.size(); i++) {
      if (entries.get(i).id().equals(id)) {
        return i;
      }
    }
    return -1;
  }

  /** The entries as the JSON export format. */
  public String exportJson() {
    return list.toJson();
  }

  /** Writes {@link #exportJson()} to {@code file}. */
  public String exportTo(Path file) {
    try {
      Files.writeString(file, exportJson(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return fail("Could not write " + file + ": " + e.getMessage());
    }
    message.set("Exported " + count(entries.size()) + " to " + file.getFileName());
    return null;
  }

  /**
   * Imports a JSON export: replaces the list ({@code replace}) or appends to it (entries whose id
   * is taken get a new one). Nothing changes when any entry is invalid; the problem names it.
   */
  public String importJson(String json, boolean replace) {
    int before = entries.size();
    String problem = run(() -> {
      if (replace) {
        list.replaceFromJson(json);
      } else {
        list.appendFromJson(json);
      }
    }, null);
    if (problem == null) {
      message.set("Imported " + count(replace ? entries.size() : entries.size() - before)
          + (replace ? " (replaced the list)" : " (appended)"));
    }
    return problem;
  }

  /** Reads {@code file} and imports it (see {@link #importJson}). */
  public String importFrom(Path file, boolean replace) {
    String json;
    try {
      json = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return fail("Could not read " + file + ": " + e.getMessage());
    }
    String problem = importJson(json, replace);
    return problem == null ? null : fail(file.getFileName() + ": " + problem);
  }

  private String run(Runnable change, String done) {
    try {
      change.run();
    } catch (IllegalArgumentException e) {
      return fail(e.getMessage());
    } finally {
      refresh();
    }
    message.set(done == null ? "" : done);
    return null;
  }

  private String count(int n) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  private String fail(String problem) {
    message.set(problem);
    return problem;
  }

  @Override
  public void close() {
    try {
      subscription.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
