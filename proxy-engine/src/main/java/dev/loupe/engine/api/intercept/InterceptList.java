package dev.loupe.engine.api.intercept;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.filter.FilterSyntaxException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An ordered list of rules or breakpoints, with an on/off switch for the whole list. Every change
 * validates its input (a bad filter or action throws {@link IllegalArgumentException} naming it and
 * changes nothing), replaces the list atomically, and tells the listeners; readers on event loops
 * see a consistent snapshot with compiled filters.
 *
 * <p>Import/export: {@link #toJson()} and {@link #replaceFromJson(String)} (a JSON array of entries).
 * With {@link #persistTo(Path)} every change is also written to that file (atomically, owner-only).
 *
 * <p>Thread-safe.
 *
 * @param <T> {@link Rule} or {@link Breakpoint}
 */
public final class InterceptList<T extends InterceptList.Entry> {
  /** What the list holds. */
  public interface Entry {
    String id();

    String name();

    boolean enabled();

    String filter();

    /** Throws {@link IllegalArgumentException} (or {@link FilterSyntaxException}) naming what is wrong. */
    void validate();

    Entry withEnabled(boolean on);
  }

  /** An entry with its compiled filter. */
  public record Compiled<T>(T entry, Filter filter) {}

  static final ObjectMapper JSON = JsonMapper.builder()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .build();

  private final Class<T> type;
  private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile List<Compiled<T>> compiled = List.of();
  private volatile boolean active = true;
  private volatile Path file;

  /** An empty list of {@code type} entries (the engine's intercept service makes the two it has). */
  public InterceptList(Class<T> type) {
    this.type = type;
  }

  static String newId() {
    return UUID.randomUUID().toString().substring(0, 8);
  }

  /** The entries in order (immutable snapshot). */
  public List<T> entries() {
    List<Compiled<T>> c = compiled;
    List<T> out = new ArrayList<>(c.size());
    for (Compiled<T> e : c) {
      out.add(e.entry());
    }
    return List.copyOf(out);
  }

  /** The entry with {@code id}, or null. */
  public T get(String id) {
    for (Compiled<T> e : compiled) {
      if (e.entry().id().equals(id)) {
        return e.entry();
      }
    }
    return null;
  }

  /** Whether the list as a whole is on (the toolbar switch); entries keep their own flags. */
  public boolean active() {
    return active;
  }

  public void active(boolean on) {
    if (active != on) {
      active = on;
      changed();
    }
  }

  /** Whether anything in the list can act: the list is on and some entry is enabled. */
  public boolean anyEnabled() {
    if (!active) {
      return false;
    }
    for (Compiled<T> e : compiled) {
      if (e.entry().enabled()) {
        return true;
      }
    }
    return false;
  }

  /** Appends {@code entry} (its id must be new). */
  public synchronized void add(T entry) {
    List<T> list = new ArrayList<>(entries());
    list.add(entry);
    replace(list);
  }

  /** Replaces the entry with the same id in place. */
  public synchronized void update(T entry) {
    List<T> list = new ArrayList<>(entries());
    int i = indexOf(list, entry.id());
    list.set(i, entry);
    replace(list);
  }

  /** Removes the entry with {@code id}; false when there was none. */
  public synchronized boolean remove(String id) {
    List<T> list = new ArrayList<>(entries());
    if (!list.removeIf(e -> e.id().equals(id))) {
      return false;
    }
    replace(list);
    return true;
  }

  /** Moves the entry with {@code id} to {@code index} (clamped to the list). */
  public synchronized void move(String id, int index) {
    List<T> list = new ArrayList<>(entries());
    T e = list.remove(indexOf(list, id));
    list.add(Math.max(0, Math.min(index, list.size())), e);
    replace(list);
  }

  /** Turns one entry on or off. */
  @SuppressWarnings("unchecked")
  public synchronized void enable(String id, boolean on) {
    List<T> list = new ArrayList<>(entries());
    int i = indexOf(list, id);
    list.set(i, (T) list.get(i).withEnabled(on));
    replace(list);
  }

  /** Replaces the whole list (validated first; ids must be unique). */
  public synchronized void replace(List<T> entries) {
    Set<String> ids = new HashSet<>();
    List<Compiled<T>> next = new ArrayList<>(entries.size());
    for (T e : entries) {
      if (e == null) {
        throw new IllegalArgumentException("null entry");
      }
      if (!ids.add(e.id())) {
        throw new IllegalArgumentException("duplicate id " + e.id());
      }
      try {
        e.validate();
      } catch (FilterSyntaxException bad) {
        throw new IllegalArgumentException("\"" + e.name() + "\": bad filter: " + bad.getMessage(), bad);
      } catch (IllegalArgumentException bad) {
        throw new IllegalArgumentException("\"" + e.name() + "\": " + bad.getMessage(), bad);
      }
      next.add(new Compiled<>(e, Filter.parse(e.filter())));
    }
    compiled = List.copyOf(next);
    changed();
  }

  /** Removes every entry. */
  public synchronized void clear() {
    replace(List.of());
  }

  /** The entries as a JSON array (the export format; {@link #replaceFromJson} reads it back). */
  public String toJson() {
    try {
      return JSON.writeValueAsString(entries());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Parses a JSON array of entries (validating them) without changing the list. */
  public List<T> parseJson(String json) {
    try {
      return List.copyOf(JSON.readValue(json, JSON.getTypeFactory().constructCollectionType(List.class, type)));
    } catch (JsonProcessingException e) {
      Throwable root = e.getCause() != null && e.getCause().getMessage() != null ? e.getCause() : null;
      throw new IllegalArgumentException("not a valid " + type.getSimpleName().toLowerCase(java.util.Locale.ROOT)
          + " list: " + (root != null ? root.getMessage() : e.getOriginalMessage()), e);
    }
  }

  /** Replaces the list with the JSON array {@code json} (import). */
  public synchronized void replaceFromJson(String json) {
    replace(parseJson(json));
  }

  /** Appends the entries of the JSON array {@code json}, giving them new ids where they clash. */
  public synchronized void appendFromJson(String json) {
    List<T> list = new ArrayList<>(entries());
    Set<String> ids = new HashSet<>();
    list.forEach(e -> ids.add(e.id()));
    for (T e : parseJson(json)) {
      list.add(ids.add(e.id()) ? e : withNewId(e));
    }
    replace(list);
  }

  @SuppressWarnings("unchecked")
  private T withNewId(T e) {
    if (e instanceof Rule r) {
      return (T) new Rule(null, r.name(), r.enabled(), r.filter(), r.action());
    }
    Breakpoint b = (Breakpoint) e;
    return (T) new Breakpoint(null, b.filter(), b.request(), b.response(), b.enabled());
  }

  /**
   * Loads {@code path} if it exists, then writes every later change back to it. A file that does
   * not parse is moved aside to {@code NAME.broken} (and the list starts empty) rather than lost.
   *
   * @return a problem to tell the user, or null
   */
  public synchronized String persistTo(Path path) {
    String problem = null;
    file = null;
    if (Files.isRegularFile(path)) {
      try {
        replace(parseJson(Files.readString(path)));
      } catch (IOException | IllegalArgumentException e) {
        Path aside = path.resolveSibling(path.getFileName() + ".broken");
        try {
          Files.move(path, aside, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException ignored) {
          // keep it where it is; we will overwrite it on the next change
        }
        problem = "could not read " + path + " (" + e.getMessage() + "); kept as " + aside;
      }
    }
    file = path;
    return problem;
  }

  /** Calls {@code listener} (on the changing thread) after every change; close to stop. */
  public AutoCloseable subscribe(Runnable listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** The entries with their compiled filters, for the engine's interceptors (immutable snapshot). */
  public List<Compiled<T>> compiled() {
    return compiled;
  }

  private void changed() {
    Path f = file;
    if (f != null) {
      try {
        dev.loupe.engine.api.util.AtomicFiles.write(f, toJson().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      } catch (IOException e) {
        System.err.println("loupe: could not save " + f + ": " + e.getMessage());
      }
    }
    for (Runnable l : listeners) {
      l.run();
    }
  }

  private static int indexOf(List<? extends Entry> list, String id) {
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i).id().equals(id)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no entry with id " + id);
  }
}
