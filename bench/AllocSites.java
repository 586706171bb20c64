import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Allocation by site from a JFR recording, for bench/alloc-per-request.sh (run as a source file:
 * {@code java bench/AllocSites.java ...}).
 *
 * <pre>
 *   AllocSites total FILE.jfr              bytes all threads allocated over the recording
 *                                          (jdk.ThreadAllocationStatistics at its start and end;
 *                                          threads started inside it count from zero)
 *   AllocSites FILE.jfr REQUESTS [DEPTH]   jdk.ObjectAllocationSample weights in bytes per request:
 *                                          by class + top DEPTH frames (default 4), by the first
 *                                          dev.loupe frame, by class
 * </pre>
 */
public class AllocSites {
  public static void main(String[] args) throws Exception {
    if (args[0].equals("total")) {
      total(Path.of(args[1]));
      return;
    }
    Path file = Path.of(args[0]);
    long requests = Long.parseLong(args[1]);
    int depth = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    Map<String, Long> bySite = new HashMap<>(), byLoupe = new HashMap<>(), byClass = new HashMap<>();
    long total = 0, samples = 0;
    java.util.Set<Long> seen = new java.util.HashSet<>();
    for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
      if (!e.getEventType().getName().equals("jdk.ObjectAllocationSample")) {
        continue;
      }
      // A thread's first sample weighs what it allocated since its last sample before the
      // recording (the warm-up): skipped.
      if (e.getThread() != null && seen.add(e.getThread().getJavaThreadId())) {
        continue;
      }
      long w = e.getLong("weight");
      total += w;
      samples++;
      String cls = e.getClass("objectClass").getName();
      cls = cls.substring(cls.lastIndexOf('.') + 1);
      List<RecordedFrame> frames = e.getStackTrace() == null ? List.of() : e.getStackTrace().getFrames();
      StringBuilder site = new StringBuilder(cls);
      for (int i = 0; i < Math.min(depth, frames.size()); i++) {
        site.append(" <- ").append(frame(frames.get(i)));
      }
      bySite.merge(site.toString(), w, Long::sum);
      String loupe = "(no Loupe frame)";
      for (RecordedFrame f : frames) {
        if (f.getMethod().getType().getName().startsWith("dev.loupe")) {
          loupe = frame(f);
          break;
        }
      }
      byLoupe.merge(loupe + "  [" + cls + "]", w, Long::sum);
      byClass.merge(cls, w, Long::sum);
    }
    System.out.printf("sampled total %d B/request (%d samples)%n", total / requests, samples);
    print("by class + top frames", bySite, 40, total, requests);
    print("by first Loupe frame", byLoupe, Integer.getInteger("top", 60), total, requests);
    print("by class", byClass, 20, total, requests);
  }

  static String frame(RecordedFrame f) {
    String t = f.getMethod().getType().getName();
    return t.substring(t.lastIndexOf('.') + 1) + "." + f.getMethod().getName() + ":" + f.getLineNumber();
  }

  static void print(String title, Map<String, Long> m, int n, long total, long requests) {
    System.out.println("-- " + title);
    m.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(n)
        .forEach(en -> System.out.printf("%7d B %5.1f%%  %s%n", en.getValue() / requests,
            100.0 * en.getValue() / total, en.getKey()));
  }

  static void total(Path file) throws Exception {
    Instant first = null;
    Map<Long, long[]> per = new HashMap<>();
    List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
        .filter(e -> e.getEventType().getName().equals("jdk.ThreadAllocationStatistics"))
        .sorted((a, b) -> a.getStartTime().compareTo(b.getStartTime())).toList();
    for (RecordedEvent e : events) {
      if (first == null) {
        first = e.getStartTime();
      }
      long tid = e.getThread("thread") == null ? -1 : e.getThread("thread").getJavaThreadId();
      long v = e.getLong("allocated");
      boolean atStart = Duration.between(first, e.getStartTime()).toMillis() <= 200;
      long[] fl = per.computeIfAbsent(tid, k -> new long[] {atStart ? v : 0, 0});
      fl[1] = v;
    }
    long sum = 0;
    for (long[] fl : per.values()) {
      sum += fl[1] - fl[0];
    }
    System.out.println(sum);
  }
}
