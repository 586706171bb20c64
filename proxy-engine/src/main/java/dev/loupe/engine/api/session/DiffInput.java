package dev.loupe.engine.api.session;

import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.api.session.model.SessionException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * One side of a session diff: a session file opened read-only, a HAR file imported into a temporary
 * session (deleted on {@link #close}), or a session already open (the window's current one, left
 * open on close).
 */
public final class DiffInput implements AutoCloseable {
  private final Path file;
  private final Session session;
  private final boolean owned;
  private final Path temporary;
  private final ImportReport report;

  private DiffInput(Path file, Session session, boolean owned, Path temporary, ImportReport report) {
    this.file = file;
    this.session = session;
    this.owned = owned;
    this.temporary = temporary;
    this.report = report;
  }

  /** What a file holds. */
  public enum Kind { LOUPE, HAR }

  /**
   * Opens {@code file}: a {@code .loupe} session read-only, a {@code .har} imported into a temporary
   * session in {@code tmpDir} (entries that cannot be read are listed in {@link #report()}). A file
   * with another name is told by its first bytes.
   *
   * @throws SessionException naming the file and the problem: missing, neither a session nor a HAR,
   *     damaged, from a newer Loupe, not a HAR at all (nothing is changed)
   */
  public static DiffInput open(Path file, Path tmpDir) throws SessionException {
    if (!Files.isRegularFile(file)) {
      throw new SessionException(SessionException.Reason.IO, file, file + ": no such file");
    }
    Kind kind = kindOf(file);
    if (kind == Kind.LOUPE) {
      return new DiffInput(file, Session.openReadOnly(file, tmpDir), true, null, null);
    }
    Path temp;
    try {
      temp = Files.createTempFile(tmpDir, "loupe-diff-", ".loupe");
    } catch (IOException e) {
      throw new SessionException(SessionException.Reason.IO, file, "cannot import " + file + ": no room for a"
          + " temporary session in " + tmpDir + ": " + e.getMessage(), e);
    }
    Session s = null;
    try {
      s = Session.open(temp, tmpDir);
      ImportReport report = s.importHar(file);
      return new DiffInput(file, s, true, temp, report);
    } catch (SessionException e) {
      closeQuietly(s);
      delete(temp);
      throw e;
    }
  }

  /** A session already open; {@link #close} leaves it open. */
  public static DiffInput of(Session session) {
    return new DiffInput(session.file(), session, false, null, null);
  }

  /**
   * By extension ({@code .loupe}, {@code .har}), else by content ({@code SQLite format 3}, or JSON).
   *
   * @throws SessionException when it is neither, or cannot be read
   */
  public static Kind kindOf(Path file) throws SessionException {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".loupe")) {
      return Kind.LOUPE;
    }
    if (name.endsWith(".har")) {
      return Kind.HAR;
    }
    try (InputStream s = Files.newInputStream(file)) {
      byte[] head = s.readNBytes(16);
      if (new String(head, StandardCharsets.ISO_8859_1).startsWith("SQLite format 3")) {
        return Kind.LOUPE;
      }
      for (byte b : head) {
        if (b == '{') {
          return Kind.HAR;
        }
        if (!Character.isWhitespace(b) && b != (byte) 0xEF && b != (byte) 0xBB && b != (byte) 0xBF) {
          break;
        }
      }
    } catch (IOException e) {
      throw new SessionException(SessionException.Reason.IO, file, file + ": cannot read: " + e.getMessage(), e);
    }
    throw new SessionException(SessionException.Reason.NOT_A_SESSION, file,
        file + " is neither a Loupe session nor a HAR file; the file was not changed");
  }

  /** The file as the user named it (the HAR, not its temporary session). */
  public Path file() {
    return file;
  }

  public Session session() {
    return session;
  }

  /** What the HAR import left out, or null for a session. */
  public ImportReport report() {
    return report;
  }

  @Override
  public void close() {
    if (owned) {
      closeQuietly(session);
    }
    if (temporary != null) {
      delete(temporary);
    }
  }

  private static void closeQuietly(Session s) {
    if (s != null) {
      try {
        s.close();
      } catch (SessionException ignored) {
        // read-only or temporary: nothing of the user's is lost
      }
    }
  }

  /** Deletes a temporary session with its companions (journal, lock, side files). */
  private static void delete(Path temp) {
    String n = temp.getFileName().toString();
    for (String suffix : new String[] {"", "-wal", "-shm", "-journal", ".lock"}) {
      try {
        Files.deleteIfExists(temp.resolveSibling(n + suffix));
      } catch (IOException ignored) {
        // a temporary file; the OS cleans its temp directory
      }
    }
    Path side = temp.resolveSibling(n + "-bodies");
    if (Files.isDirectory(side)) {
      try (Stream<Path> all = Files.walk(side)) {
        all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException ignored) {
        // as above
      }
    }
  }
}
