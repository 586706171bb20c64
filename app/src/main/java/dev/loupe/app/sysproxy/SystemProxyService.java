package dev.loupe.app.sysproxy;

import static java.util.Objects.requireNonNull;

import dev.loupe.ui.sysproxy.SystemProxyControl;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;

/**
 * Points the operating system's proxy at Loupe and back, never losing the user's settings.
 *
 * <h3>Lifecycle</h3>
 * <ol>
 *   <li>{@link #atStartup}: if a state file is left by a Loupe process that is gone (it crashed or
 *       was killed), its settings are restored first and a line says so.
 *   <li>{@link #listening} tells the service where Loupe listens; {@link #enable()} (from {@code
 *       --system-proxy} or the toolbar) saves the current settings to the {@link StateFile} with
 *       this process's pid, and only then changes them. If changing fails half-way, the saved
 *       settings are written back and the error is reported verbatim.
 *   <li>{@link #disable()} (toolbar, window close, and a JVM shutdown hook for normal exit, SIGTERM
 *       and SIGINT) restores them and deletes the state file.
 * </ol>
 * A state file whose process is still alive belongs to another running Loupe: enabling then
 * refuses instead of clobbering it. {@link #restoreSaved()} is {@code loupe --restore-system-proxy}.
 *
 * <p>Thread-safe: public methods are synchronized, and a file lock next to the state file keeps
 * two Loupe processes from switching at the same time. Methods run external tools and block for
 * up to seconds; call them off UI threads.
 */
public final class SystemProxyService {
  private final ProxyBackend backend;
  private final String unsupportedReason;
  private final CommandRunner runner;
  private final Path configDirectory;
  private final StateFile stateFile;
  private final PrintStream out;
  /** Where {@link #enable()} points the proxy; null until {@link #listening}. Guarded by this. */
  private ProxyTarget target;
  /** Non-null while this process has the system proxy switched. Guarded by this. */
  private StateFile.State switched;
  /** Guarded by this. */
  private boolean shutdownHookAdded;

  SystemProxyService(Backends.Detection detection, CommandRunner runner, Path configDirectory, PrintStream out) {
    this.backend = detection.backend();
    this.unsupportedReason = detection.unsupportedReason();
    this.runner = requireNonNull(runner, "runner");
    this.configDirectory = requireNonNull(configDirectory, "configDirectory");
    this.stateFile = new StateFile(configDirectory);
    this.out = requireNonNull(out, "out");
  }

  /** The service for this OS and desktop, keeping its state in {@code configDirectory}. */
  public static SystemProxyService forThisMachine(Path configDirectory, PrintStream out) {
    CommandRunner runner = new ProcessCommandRunner();
    return new SystemProxyService(Backends.detect(runner), runner, configDirectory, out);
  }

  /**
   * What {@code loupe} does before it starts the proxy: restores the settings a crashed Loupe left
   * switched (printing a line), and with {@code --system-proxy} checks that switching can work.
   *
   * @throws IllegalStateException with a message for the user when {@code switchRequested} and
   *     switching is unsupported here or another running Loupe has the system proxy switched
   */
  public static SystemProxyService atStartup(Path configDirectory, boolean switchRequested, PrintStream out) {
    SystemProxyService service = forThisMachine(configDirectory, out);
    try {
      service.recoverAfterCrash().ifPresent(out::println);
    } catch (SystemProxyException e) {
      System.err.println("Loupe: could not restore the system proxy settings left by a previous Loupe: "
          + e.getMessage() + " (try 'loupe --restore-system-proxy')");
    }
    if (switchRequested) {
      if (service.unsupportedReason != null) {
        throw new IllegalStateException("--system-proxy: " + service.unsupportedReason);
      }
      try {
        service.checkNotOwnedByAnother();
      } catch (SystemProxyException e) {
        throw new IllegalStateException("--system-proxy: " + e.getMessage(), e);
      }
    }
    return service;
  }

  /**
   * {@code loupe --restore-system-proxy}: restores from the state file, prints what it did.
   *
   * @return the exit status: 0 when restored or nothing to restore, 1 when restoring failed
   */
  public static int restoreCommand(Path configDirectory, PrintStream out, PrintStream err) {
    try {
      out.println(forThisMachine(configDirectory, out).restoreSaved());
      return 0;
    } catch (SystemProxyException e) {
      err.println("loupe: " + e.getMessage());
      return 1;
    }
  }

  /** "GNOME (gsettings)"..., or "none" when unsupported. */
  public String backendName() {
    return backend == null ? "none" : backend.displayName();
  }

  /** Why switching is impossible here, or null. */
  public String unsupportedReason() {
    return unsupportedReason;
  }

  public Path stateFile() {
    return stateFile.path();
  }

  /**
   * Where Loupe listens (a wildcard address becomes 127.0.0.1). With {@code switchNow} (the {@code
   * --system-proxy} option) switches right away, printing a line.
   *
   * @throws IllegalStateException with the error verbatim when switching now fails
   */
  public void listening(InetSocketAddress address, boolean switchNow) {
    synchronized (this) {
      target = ProxyTarget.of(address);
    }
    if (switchNow) {
      try {
        out.println(enable());
        out.flush();
      } catch (SystemProxyException e) {
        throw new IllegalStateException("--system-proxy: " + e.getMessage(), e);
      }
    }
  }

  /** Whether this process has the system proxy switched to Loupe. */
  public synchronized boolean isEnabled() {
    return switched != null;
  }

  /**
   * Saves the current settings, then points the system's HTTP and HTTPS proxy at Loupe.
   *
   * @return a line for the user
   * @throws SystemProxyException when unsupported, when another running Loupe has switched it, or
   *     when a tool failed (the settings are then back as they were)
   */
  public synchronized String enable() throws SystemProxyException {
    if (backend == null) {
      throw new SystemProxyException(unsupportedReason);
    }
    if (target == null) {
      throw new SystemProxyException("Loupe is not listening yet");
    }
    if (switched != null) {
      return "The system proxy already points at Loupe (" + switched.proxy() + ").";
    }
    ProxyTarget to = target;
    StateFile.State state = locked(() -> {
      Optional<StateFile.State> existing = stateFile.read();
      if (existing.isPresent()) {
        StateFile.State s = existing.get();
        if (s.ownedByThisProcess()) {
          return s;
        }
        if (s.ownerAlive()) {
          throw ownedByAnother(s);
        }
        out.println("Loupe: " + restore(s, "that Loupe process " + s.pid() + " left switched to " + s.proxy()
            + " when it stopped without restoring them"));
      }
      Map<String, String> previous = backend.capture();
      StateFile.State s = StateFile.forThisProcess(backend.id(), to, previous);
      stateFile.write(s);
      try {
        backend.apply(to, previous);
      } catch (SystemProxyException e) {
        try {
          backend.restore(previous);
          stateFile.delete();
        } catch (SystemProxyException r) {
          throw new SystemProxyException(e.getMessage() + "; putting the previous settings back failed too: "
              + r.getMessage() + " (they are saved in " + stateFile.path() + "; run 'loupe --restore-system-proxy')", e);
        }
        throw e;
      }
      return s;
    });
    switched = state;
    if (!shutdownHookAdded) {
      shutdownHookAdded = true;
      Runtime.getRuntime().addShutdownHook(new Thread(this::restoreOnExit, "loupe-system-proxy-restore"));
    }
    return "System proxy (" + backend.displayName() + ") now points at Loupe, " + to.hostPort()
        + ", for HTTP and HTTPS; the previous settings are saved in " + stateFile.path()
        + " and restored when Loupe exits.";
  }

  /**
   * Restores the settings {@link #enable()} replaced; a no-op when this process has not switched.
   *
   * @return a line for the user
   */
  public synchronized String disable() throws SystemProxyException {
    if (switched == null) {
      return "The system proxy is not switched to Loupe.";
    }
    StateFile.State mine = switched;
    String message = locked(() -> {
      Optional<StateFile.State> current;
      try {
        current = stateFile.read();
      } catch (SystemProxyException unreadable) {
        current = Optional.of(mine); // restore what we saved in memory
      }
      if (current.isEmpty() || current.get().pid() != mine.pid()) {
        return "The system proxy settings were already restored (by 'loupe --restore-system-proxy').";
      }
      return restore(current.get(), "");
    });
    switched = null;
    return message;
  }

  /** Restores on exit (window closed, SIGTERM, SIGINT, end of main): prints what happened, never throws. */
  public void restoreOnExit() {
    synchronized (this) {
      if (switched == null) {
        return;
      }
    }
    try {
      out.println("Loupe: " + disable());
      out.flush();
    } catch (SystemProxyException | RuntimeException e) {
      System.err.println("Loupe: could not restore the system proxy settings: " + e.getMessage()
          + " (they are saved in " + stateFile.path() + "; run 'loupe --restore-system-proxy')");
    }
  }

  /**
   * Restores settings left switched by a Loupe process that is gone.
   *
   * @return the line to print when it restored something
   */
  public synchronized Optional<String> recoverAfterCrash() throws SystemProxyException {
    if (!Files.exists(stateFile.path())) {
      return Optional.empty();
    }
    return locked(() -> {
      Optional<StateFile.State> s = stateFile.read();
      if (s.isEmpty() || s.get().ownerAlive()) {
        return Optional.empty();
      }
      return Optional.of("Loupe: " + restore(s.get(), "that Loupe process " + s.get().pid() + " left switched to "
          + s.get().proxy() + " when it stopped without restoring them (crash or kill)"));
    });
  }

  /** {@code --restore-system-proxy}: restores whatever the state file holds. */
  public synchronized String restoreSaved() throws SystemProxyException {
    if (!Files.exists(stateFile.path())) {
      return "Loupe: nothing to restore (no saved system proxy settings in " + configDirectory + ").";
    }
    return locked(() -> {
      Optional<StateFile.State> s = stateFile.read();
      if (s.isEmpty()) {
        return "Loupe: nothing to restore (no saved system proxy settings in " + configDirectory + ").";
      }
      boolean alive = s.get().ownerAlive() && !s.get().ownedByThisProcess();
      return "Loupe: " + restore(s.get(), "saved by Loupe process " + s.get().pid() + " at " + s.get().switchedAt())
          + (alive ? " Loupe process " + s.get().pid() + " is still running; it will not restore them again." : "");
    });
  }

  /** Throws when a running Loupe other than this process has the system proxy switched. */
  void checkNotOwnedByAnother() throws SystemProxyException {
    Optional<StateFile.State> s = stateFile.read();
    if (s.isPresent() && s.get().ownerAlive() && !s.get().ownedByThisProcess()) {
      throw ownedByAnother(s.get());
    }
  }

  private SystemProxyException ownedByAnother(StateFile.State s) {
    return new SystemProxyException("another Loupe (process " + s.pid() + ") has switched the system proxy to "
        + s.proxy() + "; stop it first (it restores the previous settings when it exits), or turn its system"
        + " proxy off. State file: " + stateFile.path());
  }

  /** Restores {@code s} with the backend that saved it, deletes the state file, returns a sentence. */
  private String restore(StateFile.State s, String how) throws SystemProxyException {
    ProxyBackend b = backend != null && backend.id().equals(s.backend()) ? backend : Backends.byId(s.backend(), runner);
    b.restore(s.settings());
    stateFile.delete();
    return "restored the system proxy settings (" + b.displayName() + ")" + (how.isEmpty() ? "" : " " + how) + ".";
  }

  private interface Locked<T> {
    T run() throws SystemProxyException;
  }

  /** Runs {@code action} holding the lock file next to the state file (one Loupe process at a time). */
  private <T> T locked(Locked<T> action) throws SystemProxyException {
    Path lock = configDirectory.resolve("system-proxy.lock");
    try {
      Files.createDirectories(configDirectory);
      try (FileChannel ch = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = ch.lock()) {
        return action.run();
      }
    } catch (IOException e) {
      throw new SystemProxyException("cannot lock " + lock + ": " + e.getMessage(), e);
    }
  }

  /** The port the desktop UI's toolbar toggle calls. */
  public SystemProxyControl control() {
    return new SystemProxyControl() {
      @Override
      public String backendName() {
        return SystemProxyService.this.backendName();
      }

      @Override
      public String unsupportedReason() {
        return SystemProxyService.this.unsupportedReason();
      }

      @Override
      public boolean isEnabled() {
        return SystemProxyService.this.isEnabled();
      }

      @Override
      public Result enable() {
        try {
          return new Result(true, SystemProxyService.this.enable());
        } catch (SystemProxyException e) {
          return new Result(false, e.getMessage());
        }
      }

      @Override
      public Result disable() {
        try {
          return new Result(true, SystemProxyService.this.disable());
        } catch (SystemProxyException e) {
          return new Result(false, e.getMessage());
        }
      }
    };
  }
}
