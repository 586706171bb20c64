package dev.loupe.app.sysproxy;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code system-proxy.json} in Loupe's configuration directory: the settings a Loupe process
 * replaced when it switched the system proxy, and which process that was. It exists exactly while
 * some Loupe has the system proxy switched (or crashed with it switched). Written atomically
 * (temporary file, then rename) and readable by the user alone.
 */
final class StateFile {
  static final String NAME = "system-proxy.json";
  static final int VERSION = 1;
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /**
   * The saved state.
   *
   * @param backend {@link ProxyBackend#id()} of the backend that switched
   * @param pid the Loupe process that switched
   * @param pidStartedAt when that process started (tells a reused pid apart), or null if unknown
   * @param proxy Loupe's {@code host:port} the system proxy was pointed at
   * @param switchedAt when it switched
   * @param settings what {@link ProxyBackend#capture()} returned
   */
  record State(int version, String backend, long pid, String pidStartedAt, String proxy, String switchedAt,
      Map<String, String> settings) {
    State {
      requireNonNull(backend, "backend");
      settings = settings == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(settings));
    }

    /** Whether the process that switched is still running (same pid and same start time). */
    boolean ownerAlive() {
      Optional<ProcessHandle> h = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
      if (h.isEmpty()) {
        return false;
      }
      Optional<Instant> started = h.get().info().startInstant();
      if (pidStartedAt == null || started.isEmpty()) {
        return true;
      }
      // Start times are derived from clock ticks; allow a little rounding between readings.
      return Duration.between(Instant.parse(pidStartedAt), started.get()).abs().compareTo(Duration.ofSeconds(2)) <= 0;
    }

    /** Whether this JVM is the process that switched. */
    boolean ownedByThisProcess() {
      return pid == ProcessHandle.current().pid() && ownerAlive();
    }
  }

  private final Path file;

  StateFile(Path configDirectory) {
    this.file = requireNonNull(configDirectory, "configDirectory").resolve(NAME);
  }

  Path path() {
    return file;
  }

  /** A state for this process. */
  static State forThisProcess(String backend, ProxyTarget target, Map<String, String> settings) {
    ProcessHandle self = ProcessHandle.current();
    return new State(VERSION, backend, self.pid(), self.info().startInstant().map(Instant::toString).orElse(null),
        target.hostPort(), Instant.now().toString(), settings);
  }

  /** The saved state, or empty when there is none. */
  Optional<State> read() throws SystemProxyException {
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      State s = JSON.readValue(file.toFile(), State.class);
      if (s.version() != VERSION) {
        throw new SystemProxyException(file + ": unsupported version " + s.version());
      }
      return Optional.of(s);
    } catch (IOException e) {
      throw new SystemProxyException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /** Writes {@code state} atomically with user-only permissions (creating the directory if needed). */
  void write(State state) throws SystemProxyException {
    Path dir = file.toAbsolutePath().getParent();
    try {
      boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
      if (!Files.isDirectory(dir)) {
        if (posix) {
          Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
          Files.createDirectories(dir);
        }
      }
      Set<PosixFilePermission> userOnly = PosixFilePermissions.fromString("rw-------");
      FileAttribute<?>[] attrs = posix ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(userOnly)}
          : new FileAttribute<?>[0];
      Path tmp = Files.createTempFile(dir, NAME, ".tmp", attrs);
      try {
        Files.write(tmp, JSON.writeValueAsBytes(state));
        try (var ch = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
          ch.force(true);
        }
        try {
          Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      throw new SystemProxyException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  void delete() throws SystemProxyException {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new SystemProxyException("cannot delete " + file + ": " + e.getMessage(), e);
    }
  }
}
