package dev.loupe.ui.session;

import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.FlowStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The desktop window's current session: always a file on disk, recorded into as traffic flows
 * (autosave). Untitled sessions live in {@code CONFDIR/sessions/}; {@link #saveAs} gives one a
 * name. New, Open, Open Recent, Import HAR and Export HAR go through here; the window and the
 * flow table follow {@link #addListener switches}.
 *
 * <h3>Crash safety</h3>
 * {@code CONFDIR/sessions/state} names the current session and whether it was closed cleanly. After
 * a crash (or {@code kill -9}) the next start finds it unclean: {@link #restorable()} offers that
 * session back; it holds every flow written up to the last fraction of a second.
 *
 * <h3>Housekeeping</h3>
 * An untitled session left empty is deleted when another takes its place; the newest
 * {@value #KEEP_UNTITLED} untitled sessions are kept (they show in Open Recent), older ones deleted.
 *
 * <h3>Threads</h3>
 * Methods block on disk (opening checks a file, closing writes what is left); the window calls them
 * off the UI thread. Synchronized; listeners are told on the calling thread.
 */
public final class SessionManager implements AutoCloseable {
  static final int KEEP_UNTITLED = 10;
  static final int RECENT = 10;
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS", Locale.ROOT);

  private final Path dir;
  private final FlowStore store;
  private final Path spillDir;
  private final List<Consumer<String>> problems = new CopyOnWriteArrayList<>();
  private final List<Consumer<Session>> listeners = new CopyOnWriteArrayList<>();
  private Session current;
  private Path restorable;

  /**
   * @param confdir  where {@code sessions/} goes
   * @param store    the live store sessions record
   * @param spillDir where bodies read back from a session beyond 1 MiB go (temporary files)
   */
  public SessionManager(Path confdir, FlowStore store, Path spillDir) throws IOException {
    this.dir = confdir.resolve("sessions").toAbsolutePath();
    this.store = store;
    this.spillDir = spillDir;
    Files.createDirectories(dir);
    try {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    } catch (UnsupportedOperationException notPosix) {
      // Windows: the profile directory is the user's already
    }
  }

  /**
   * Starts with {@code file} (a session to open, or null for a new untitled one) and notes whether
   * the last session ended cleanly; see {@link #restorable()}.
   */
  public synchronized Session start(Path file) throws SessionException, IOException {
    State last = State.read(dir);
    if (last != null && !last.clean() && Files.isRegularFile(last.file())
        && (file == null || !last.file().toAbsolutePath().equals(file.toAbsolutePath()))) {
      restorable = last.file();
    }
    switchTo(file == null ? recordable(untitledFile()) : recordable(file));
    return current;
  }

  /**
   * Opens {@code file} for recording, its indexes built when a filter or a column sort first needs
   * them ({@link Session.Indexing#ON_DEMAND}): until then each flow costs the session's writer about
   * half as much CPU, and the young collections copy fewer flows waiting for it (docs/PERFORMANCE.md,
   * "The window's writer and GC").
   */
  private Session recordable(Path file) throws SessionException {
    return Session.open(file, spillDir, Session.Indexing.ON_DEMAND);
  }

  /** The session a crash left behind (not closed cleanly), to offer back once; null when none. */
  public synchronized Path restorable() {
    return restorable;
  }

  /** The offer is declined: the session stays on disk (Open Recent has it). */
  public synchronized void declineRestore() {
    restorable = null;
  }

  public synchronized Session current() {
    return current;
  }

  /** Whether {@code s} is an untitled session (kept in the sessions directory). */
  public boolean untitled(Session s) {
    return s.file().getParent().equals(dir) && s.file().getFileName().toString().startsWith("untitled-");
  }

  /**
   * Told (on the writer's thread) a sentence when writing the current session fails and capture
   * pauses, and null when it works again.
   */
  public void addProblemListener(Consumer<String> listener) {
    problems.add(listener);
  }

  /** Told (on the thread that switched) each time another session becomes the current one. */
  public void addListener(Consumer<Session> listener) {
    listeners.add(listener);
  }

  /** Records into a new untitled session from now on. */
  public synchronized Session newSession() throws SessionException {
    switchTo(recordable(untitledFile()));
    return current;
  }

  /**
   * Opens {@code file}: a session (recorded into from now on), or a HAR file (imported into a new
   * untitled session; the report says what could not be read).
   */
  public synchronized ImportReport open(Path file) throws SessionException, IOException {
    if (isHar(file)) {
      Session s = recordable(untitledFile());
      ImportReport report;
      try {
        report = s.importHar(file);
      } catch (SessionException e) {
        Path f = s.file();
        s.close();
        Files.deleteIfExists(f);
        throw e;
      }
      switchTo(s);
      return report;
    }
    if (current != null && current.file().equals(file.toAbsolutePath())) {
      return null;
    }
    switchTo(recordable(file));
    remember(file);
    return null;
  }

  /** Adds a HAR file's entries to the current session. */
  public synchronized ImportReport importHar(Path har) throws SessionException {
    return current.importHar(har);
  }

  /** Writes the flows {@code filter} matches as HAR; returns how many. */
  public long exportHar(Path har, Filter filter) throws SessionException {
    Session s;
    synchronized (this) {
      s = current;
    }
    return s.exportHar(har, filter);
  }

  /**
   * Saves the current session as {@code target} (one portable file) and records into that from now
   * on; an untitled session it came from is deleted.
   */
  public synchronized Session saveAs(Path target) throws SessionException, IOException {
    Path t = target.toAbsolutePath();
    if (t.equals(current.file())) {
      current.flush();
      return current;
    }
    current.saveAs(t);
    switchTo(recordable(t));
    remember(t);
    return current;
  }

  /** Session files opened or saved lately, newest first (those still there), then untitled ones. */
  public synchronized List<Path> recent() {
    List<Path> out = new ArrayList<>();
    for (String line : readLines(dir.resolve("recent"))) {
      Path p = Path.of(line);
      if (Files.isRegularFile(p) && !out.contains(p)) {
        out.add(p);
      }
    }
    for (Path p : untitled()) {
      if (current == null || !p.equals(current.file())) {
        out.add(p);
      }
    }
    return out;
  }

  private void remember(Path file) {
    List<String> lines = new ArrayList<>();
    lines.add(file.toAbsolutePath().toString());
    for (String l : readLines(dir.resolve("recent"))) {
      if (!lines.contains(l) && lines.size() < RECENT) {
        lines.add(l);
      }
    }
    try {
      Files.write(dir.resolve("recent"), lines, StandardCharsets.UTF_8);
    } catch (IOException ignored) {
      // the list is a convenience
    }
  }

  private static List<String> readLines(Path file) {
    try {
      return Files.isRegularFile(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      return List.of();
    }
  }

  /** Untitled sessions, newest first. */
  private List<Path> untitled() {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().startsWith("untitled-")
              && p.getFileName().toString().endsWith(".loupe"))
          .sorted(Comparator.comparing((Path p) -> p.getFileName().toString()).reversed()).toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  private Path untitledFile() {
    return dir.resolve("untitled-" + STAMP.format(LocalDateTime.now()) + ".loupe").toAbsolutePath();
  }

  private static boolean isHar(Path file) {
    return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".har");
  }

  /** Closes the current session (an untitled empty one is deleted), clears the store, records into {@code next}. */
  private void switchTo(Session next) throws SessionException {
    Session old = current;
    if (old != null) {
      closeAndTidy(old);
    }
    store.clear();
    current = next;
    next.record(store, why -> problems.forEach(p -> p.accept(why)));
    State.write(dir, new State(next.file(), false));
    pruneUntitled();
    for (Consumer<Session> l : listeners) {
      l.accept(next);
    }
  }

  private void closeAndTidy(Session s) throws SessionException {
    long flows = s.count() + store.size();
    s.close();
    if (untitled(s) && flows == 0) {
      try {
        Files.deleteIfExists(s.file());
      } catch (IOException ignored) {
        // pruned later
      }
    }
  }

  private void pruneUntitled() {
    List<Path> all = untitled();
    for (int i = KEEP_UNTITLED; i < all.size(); i++) {
      Path p = all.get(i);
      if (current == null || !p.equals(current.file())) {
        try {
          Files.deleteIfExists(p);
        } catch (IOException ignored) {
          // next time
        }
      }
    }
  }

  /** Writes what is left and closes the current session cleanly (the next start offers nothing). */
  @Override
  public synchronized void close() throws SessionException {
    if (current == null) {
      return;
    }
    Session s = current;
    current = null;
    closeAndTidy(s);
    State.write(dir, new State(s.file(), true));
  }

  /** {@code sessions/state}: the current session's file and whether it was closed cleanly. */
  record State(Path file, boolean clean) {
    static State read(Path dir) {
      List<String> lines = readLines(dir.resolve("state"));
      if (lines.size() < 2) {
        return null;
      }
      return new State(Path.of(lines.get(0)), lines.get(1).equals("clean"));
    }

    static void write(Path dir, State s) {
      try {
        Path tmp = dir.resolve("state.tmp");
        Files.write(tmp, List.of(s.file().toString(), s.clean() ? "clean" : "open"), StandardCharsets.UTF_8);
        Files.move(tmp, dir.resolve("state"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException ignored) {
        // without it a crash is not noticed; nothing else depends on it
      }
    }
  }
}
