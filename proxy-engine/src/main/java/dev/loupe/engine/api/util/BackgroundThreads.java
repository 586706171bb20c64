package dev.loupe.engine.api.util;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads that work in the background (body search, the table's row batches and filter answers) at a <b>lower</b>
 * operating-system scheduling priority than the rest of Loupe, so that on a busy machine the window's UI thread
 * (and the proxy's event loops) get a core first. Not for work that must keep up with the traffic: the session's
 * writer, lowered, fell behind on a busy machine (4 or 10 steps down: 3,754 or 2,648 flows/s written where the
 * normal priority wrote 4,980 and 4,517; its backlog is flows the young collections copy, and at 100,000 capture
 * pauses) without a shorter UI wait p99 (docs/PERFORMANCE.md, "The UI thread at 10^6, fifth pass").
 *
 * <p>Linux keeps a nice value per thread: {@link #lowerCurrentThread()} sets the calling thread's to the
 * process's plus {@value #NICER} (at most 19) with {@code setpriority(PRIO_PROCESS, tid, nice)}, called
 * through {@code java.lang.foreign} (JDK 22+; by reflection, as Loupe compiles for 17). It only ever lowers a
 * priority, which needs no privilege, and never raises one (a thread already at or below the target is left
 * alone). Elsewhere (another OS, JDK 17-21, native access refused) it does nothing and says so; the threads
 * then run as before. The packaged launcher runs JDK 25 with native access allowed (installer's
 * {@code LauncherOptions.JDK24}).
 */
public final class BackgroundThreads {
  /** How many nice steps below the process a background thread runs (Linux: 0 normal .. 19 lowest). */
  public static final int NICER = 10;
  private static final int LOWEST = 19;

  private BackgroundThreads() {}

  /**
   * A factory of daemon threads named {@code name} (with {@code -N} appended when {@code numbered}) that
   * lower their own priority ({@link #lowerCurrentThread()}) before they run anything.
   */
  public static ThreadFactory factory(String name, boolean numbered) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(() -> {
        lowerCurrentThread();
        r.run();
      }, numbered ? name + "-" + n.incrementAndGet() : name);
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Lowers the calling thread's scheduling priority to the process's nice value plus {@link #NICER} (at
   * most 19). Returns whether the thread now runs below the process (true too when it already did);
   * false where this cannot be done (not Linux, a runtime before JDK 22, native access refused, a process
   * already at the lowest priority).
   */
  public static boolean lowerCurrentThread() {
    return lowerCurrentThread(NICER);
  }

  /** {@link #lowerCurrentThread()} to the process's nice value plus {@code steps} (1..19). */
  public static boolean lowerCurrentThread(int steps) {
    if (steps < 1 || steps > LOWEST) {
      throw new IllegalArgumentException("steps: " + steps);
    }
    OptionalInt tid = currentTid();
    if (tid.isEmpty()) {
      return false;
    }
    OptionalInt own = niceOf(tid.getAsInt());
    OptionalInt process = processNice();
    if (own.isEmpty() || process.isEmpty()) {
      return false;
    }
    int target = Math.min(LOWEST, process.getAsInt() + steps);
    if (own.getAsInt() >= target) {
      return own.getAsInt() > process.getAsInt(); // already lower (or the process at the lowest: nothing to do)
    }
    MethodHandle setpriority = Native.SETPRIORITY;
    if (setpriority == null) {
      return false;
    }
    try {
      return (int) setpriority.invokeWithArguments(0 /* PRIO_PROCESS: one thread on Linux */, tid.getAsInt(), target)
          == 0;
    } catch (Throwable e) { // native access refused at the call
      return false;
    }
  }

  /** The calling thread's kernel thread id (Linux: {@code /proc/thread-self}), or empty elsewhere. */
  public static OptionalInt currentTid() {
    try {
      Path self = Files.readSymbolicLink(Path.of("/proc/thread-self")); // "PID/task/TID"
      return OptionalInt.of(Integer.parseInt(self.getFileName().toString()));
    } catch (IOException | UnsupportedOperationException | NumberFormatException | SecurityException e) {
      return OptionalInt.empty();
    }
  }

  /** The nice value of thread {@code tid} of this process (Linux), or empty. */
  public static OptionalInt niceOf(int tid) {
    return niceIn(Path.of("/proc/self/task/" + tid + "/stat"));
  }

  /** The process's nice value (its main thread's; Linux), or empty. */
  static OptionalInt processNice() {
    return niceIn(Path.of("/proc/self/stat"));
  }

  /** Field 19 of a {@code stat} file (proc(5)); the command name in field 2 may hold spaces and parentheses. */
  static OptionalInt niceIn(Path stat) {
    try {
      String s = Files.readString(stat);
      String[] fields = s.substring(s.lastIndexOf(')') + 2).trim().split(" ");
      return OptionalInt.of(Integer.parseInt(fields[19 - 3])); // fields[0] is field 3 (state)
    } catch (IOException | RuntimeException e) {
      return OptionalInt.empty();
    }
  }

  /** The downcall, made once; null where there is none. */
  private static final class Native {
    static final MethodHandle SETPRIORITY = link();

    private static MethodHandle link() {
      if (Runtime.version().feature() < 22
          || !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
        return null;
      }
      // int which, id_t who (unsigned int), int prio
      return NativeDowncall.link("setpriority", "JAVA_INT", "JAVA_INT", "JAVA_INT", "JAVA_INT");
    }
  }
}
