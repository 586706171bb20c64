package dev.loupe.bench.session;

import dev.loupe.engine.api.session.DiffSummary;
import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.SessionDiff;
import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.api.session.model.FlowSummary;
import dev.loupe.engine.api.session.model.SortKey;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.engine.internal.session.SessionFile;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A session of N flows (default 1,000,000) on disk: how fast flows are recorded into it, how much
 * memory the process holds meanwhile and after, how long opening the file takes until its first
 * page of rows, a head (column) filter until its first page and all its ids, a body search over
 * every flow, and (with {@code --diff}) a session diff of the file against a copy with changes.
 *
 * <p>Flows are made in this process, shaped like small proxied API traffic (50 hosts, GET and POST,
 * 2xx-5xx, JSON bodies of 150-1,500 bytes, 7 request and 6 response headers), and go through the
 * real {@link FlowStore} and {@link Session#record} path the proxy uses; no sockets (the proxy's own
 * cost is the load probe's business). Run with the launcher's JVM options:
 * {@code bench/session-scale.sh [N] [--diff] [--dir=DIR] [--reuse] [--search-only] [--open-only] [--deferred]}: {@code --reuse}
 * reads the file an earlier run left in DIR instead of recording a new one, {@code --search-only} skips the
 * head filters, {@code --open-only} both the head filters and the body search, {@code --deferred} records as headless {@code --session} does ({@link Session.Indexing#DEFERRED}:
 * the indexes are built on close), then drops them (what a killed recording leaves) and opens the file;
 * {@code --on-demand} records and opens as the window does ({@link Session.Indexing#ON_DEMAND}: the start-time
 * index only, the others built when a filter or sort first asks) and runs the head filters twice, the
 * second time once the index they asked for is built.
 */
public final class SessionScaleBenchmark {
  private static final String[] TYPES = {"application/json", "application/json; charset=utf-8", "text/html",
      "image/png", "text/css"};

  private SessionScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    int n = 1_000_000;
    boolean diff = false;
    boolean reuse = false;
    boolean searchOnly = false;
    boolean openOnly = false;
    Path dir = null;
    for (String a : args) {
      if (a.equals("--deferred")) {
        deferred = true;
      } else if (a.equals("--on-demand")) {
        onDemand = true;
      } else if (a.equals("--open-only")) {
        openOnly = true;
      } else if (a.equals("--diff")) {
        diff = true;
      } else if (a.equals("--reuse")) {
        reuse = true;
      } else if (a.equals("--search-only")) {
        searchOnly = true;
      } else if (a.startsWith("--dir=")) {
        dir = Files.createDirectories(Path.of(a.substring(6)));
      } else {
        n = Integer.parseInt(a.replace("_", ""));
      }
    }
    dir = dir != null ? dir : Files.createTempDirectory("loupe-session-bench");
    Path file = dir.resolve("bench.loupe");
    reuse &= Files.isRegularFile(file);
    if (!reuse) {
      Files.deleteIfExists(file);
    }
    System.out.printf(Locale.ROOT, "session scale: %,d flows into %s; java %s, %s, %d cpus%n", n, file,
        System.getProperty("java.version"), ManagementFactory.getRuntimeMXBean().getInputArguments(),
        Runtime.getRuntime().availableProcessors());
    System.out.println("load average at start: " + loadAverage());

    // 1. ingest: as fast as one producer makes flows, through the store and the recorder
    Peak peak = new Peak();
    peak.start();
    if (reuse) {
      System.out.println("--reuse: reading the existing " + file + " (" + mib(Files.size(file)) + "), no ingest");
    } else {
      ingest(file, dir, n, false, peak);
      System.gc();
      Thread.sleep(500);
      System.out.printf(Locale.ROOT, "after close and a GC: heap used %s, RSS %s%n", mib(peak.heapNow()), mib(rss("VmRSS")));
    }

    if (deferred) { // what a killed deferred recording leaves: the file without its indexes
      long d0 = System.nanoTime();
      try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + file);
          java.sql.Statement st = c.createStatement()) {
        for (String index : List.of("flow_host", "flow_method", "flow_status", "flow_res_type", "flow_res_size",
            "flow_duration", "flow_started", "flow_client_proto")) {
          st.execute("DROP INDEX IF EXISTS " + index);
        }
      }
      System.out.printf(Locale.ROOT, "--deferred: indexes dropped (as a killed recording leaves the file) in %.1f s%n",
          (System.nanoTime() - d0) / 1e9);
    }

    // 2. opening the file: the table's first page (ids in arrival order, newest page, summaries)
    long o0 = System.nanoTime();
    try (Session s = Session.open(file, dir, onDemand ? Session.Indexing.ON_DEMAND : Session.Indexing.LIVE)) {
      long opened = System.nanoTime();
      long count = s.count();
      long[] first = firstIds(s, Filter.ALL, 50);
      Map<Long, FlowSummary> rows = s.summaries(first, 0, first.length);
      long firstPage = System.nanoTime();
      long[] all = allIds(s, Filter.ALL);
      long allIds = System.nanoTime();
      System.out.printf(Locale.ROOT, "open %,d-flow file: open %.0f ms, count %.0f ms, first page (50 rows) at %.0f ms;"
          + " all %,d ids at %.0f ms (%s of ids)%n", count, (opened - o0) / 1e6, 0.0, (firstPage - o0) / 1e6,
          all.length, (allIds - o0) / 1e6, mib(all.length * 8L));
      if (rows.size() != first.length) {
        throw new IllegalStateException("first page: " + rows.size() + " rows for " + first.length + " ids");
      }
      if (deferred) { // the indexes are being built on the writer thread: a filter meanwhile scans
        Filter f = Filter.parse("~d host7.example.com & status>=400");
        long h0 = System.nanoTime();
        long[] page = firstIds(s, f, 50);
        System.out.printf(Locale.ROOT, "while indexing: head filter first page (%d ids) %.0f ms (indexed: %s)%n",
            page.length, (System.nanoTime() - h0) / 1e6, s.indexed());
        while (!s.indexed()) {
          Thread.sleep(50);
        }
        System.out.printf(Locale.ROOT, "indexes built in the background: %.1f s after opening%n",
            (System.nanoTime() - o0) / 1e9);
      }

      // 3. head filters: answered by SQL on indexed columns (--on-demand: the first pass by scans, its
      // index queued; the second once it is built)
      List<String> heads = List.of("~d host7.example.com & status>=400", "~m POST", "status=503", "~t png");
      List<String> passes = new java.util.ArrayList<>(heads);
      if (onDemand) {
        passes.add("(status index)");
        passes.addAll(heads);
      }
      for (String expr : searchOnly || openOnly ? List.<String>of() : passes) {
        if (expr.equals("(status index)")) {
          long w0 = System.nanoTime();
          while (!hasIndex(file, "flow_status")) {
            Thread.sleep(50);
          }
          System.out.printf(Locale.ROOT, "on demand: flow_status built %.1f s after the first filter pass ended%n",
              (System.nanoTime() - w0) / 1e9);
          continue;
        }
        Filter f = Filter.parse(expr);
        long h0 = System.nanoTime();
        long[] page = firstIds(s, f, 50);
        long h1 = System.nanoTime();
        s.summaries(page, 0, page.length);
        long h2 = System.nanoTime();
        long[] every = allIds(s, f);
        long h3 = System.nanoTime();
        System.out.printf(Locale.ROOT, "head filter %-36s first page %6.0f ms (+ rows %4.0f ms); all %,9d ids %6.0f ms%n",
            "'" + expr + "':", (h1 - h0) / 1e6, (h2 - h1) / 1e6, every.length, (h3 - h0) / 1e6);
      }
      // sorted by a column, as the table asks when a header is clicked
      if (!searchOnly && !openOnly) {
        long k0 = System.nanoTime();
        long[] byStatus = firstIds(s, Filter.ALL, 50, SortKey.STATUS, true);
        System.out.printf(Locale.ROOT, "sort by status (descending), first page: %.0f ms (%d ids)%n",
            (System.nanoTime() - k0) / 1e6, byStatus.length);
      }

      // 4. body search: a scan of every flow's bodies; the table asks for a first page, then the rest
      for (String expr : openOnly ? List.<String>of() : List.of("~b needle-424242", "~b value-1234",
          "~bs needle-424242 & ~m POST", "~b needle-\\d+")) {
        Filter f = Filter.parse(expr);
        long p0 = System.nanoTime();
        long[] page = firstIds(s, f, 50);
        long p1 = System.nanoTime();
        long c1 = cpuNanos();
        long[] hits = allIds(s, f);
        System.out.printf(Locale.ROOT, "body search %-32s first page (%d ids) %6.0f ms; all %,d hits over %,d flows"
            + " in %.1f s (%.1f s of CPU)%n", "'" + expr + "':", page.length, (p1 - p0) / 1e6, hits.length, count,
            (System.nanoTime() - p1) / 1e9, (cpuNanos() - c1) / 1e9);
      }
    }
    System.out.printf(Locale.ROOT, "after the reads: heap used %s, RSS %s, peak RSS %s%n", mib(peak.heapNow()),
        mib(rss("VmRSS")), mib(rss("VmHWM")));

    // 5. diff: the file against a second session whose every 1,000th flow has another status
    if (diff) {
      Path other = dir.resolve("other.loupe");
      Files.deleteIfExists(other);
      System.out.println("B: the same flows, every 1,000th answered 599");
      ingest(other, dir, n, true, peak);
      peak.reset();
      long d0 = System.nanoTime();
      AtomicLong lines = new AtomicLong();
      DiffSummary sum;
      try (Session a = Session.openReadOnly(file, dir); Session b = Session.openReadOnly(other, dir)) {
        sum = SessionDiff.run(a, b, DiffOptions.DEFAULT, d -> lines.incrementAndGet(), () -> false);
      }
      System.out.printf(Locale.ROOT, "diff %,d vs %,d flows: %s in %.1f s (%,.0f pairs/s); peak heap used %s, peak RSS %s%n",
          sum.flowsA(), sum.flowsB(), sum, (System.nanoTime() - d0) / 1e9, sum.flowsA() / ((System.nanoTime() - d0) / 1e9),
          mib(peak.maxHeap()), mib(rss("VmHWM")));
      Files.deleteIfExists(other);
    }
    peak.interrupt();
    System.out.println("load average at end: " + loadAverage());
  }


  /** Records {@code n} flows into a new session {@code file}; {@code variant}: every 1,000th answered 599. */
  private static boolean deferred;
  private static boolean onDemand;

  /** Whether {@code file}'s catalogue lists {@code index} (read on a connection of its own). */
  private static boolean hasIndex(Path file, String index) throws java.sql.SQLException {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + file);
        java.sql.PreparedStatement p = c.prepareStatement("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?")) {
      p.setString(1, index);
      try (java.sql.ResultSet r = p.executeQuery()) {
        return r.next();
      }
    }
  }

  private static void ingest(Path file, Path dir, int n, boolean variant, Peak peak) throws Exception {
    long t0 = System.nanoTime();
    RecordingStore store = new RecordingStore();
    // the engine's own: its writer statistics; --deferred: as headless --session records
    try (SessionFile s = SessionFile.open(file, dir, deferred ? Session.Indexing.DEFERRED
        : onDemand ? Session.Indexing.ON_DEMAND : Session.Indexing.LIVE)) {
      s.record(store, p -> System.out.println("PROBLEM: " + p));
      CapturePolicy capture = CapturePolicy.defaults();
      for (int i = 0; i < n; i++) {
        record(store, capture, i, variant);
        if ((i & 0xFFFF) == 0xFFFF) {
          long now = System.nanoTime();
          System.out.printf(Locale.ROOT, "  %,9d flows, %5.1f s, store holds %,d, waiting %,d, heap %s, rss %s%n", i + 1,
              (now - t0) / 1e9, store.size(), s.stats().pending(), mib(peak.heapNow()), mib(rss("VmRSS")));
        }
        // the recorder batches every 200 ms or 4,000 flows; a producer far ahead of it would only queue
        // flows in memory: it waits, so the rate measured is what the writer sustains
        while (s.stats() != null && s.stats().pending() > 20_000) {
          Thread.sleep(5);
        }
      }
      long produced = System.nanoTime();
      s.flush();
      long flushed = System.nanoTime();
      var st = s.stats();
      System.out.printf(Locale.ROOT, "ingest: %,d flows made in %.1f s, on disk after %.1f s: %,.0f flows/s sustained;"
          + " %,d batches, longest %.0f ms; store holds %,d flows%n", n, (produced - t0) / 1e9, (flushed - t0) / 1e9,
          n / ((flushed - t0) / 1e9), st.batches(), st.maxBatchNanos() / 1e6, store.size());
      System.out.printf(Locale.ROOT, "session writer thread: %.1f s of CPU, %.0f µs a flow%n", writerCpu() / 1e9,
          writerCpu() / 1e3 / n);
      System.out.printf(Locale.ROOT, "memory while recording: peak heap used %s, RSS now %s, peak RSS %s%n",
          mib(peak.maxHeap()), mib(rss("VmRSS")), mib(rss("VmHWM")));
      long c0 = System.nanoTime();
      s.close();
      System.out.printf(Locale.ROOT, "close (write the rest, fold, %sleave no WAL): %.1f s; file %s%n",
          deferred ? "build the indexes, " : "",
          (System.nanoTime() - c0) / 1e9, mib(Files.size(file)));
    }
  }

  /** One flow shaped like small proxied API traffic ({@code variant}: every 1,000th answered 599). */
  public static void record(RecordingStore store, CapturePolicy capture, int i, boolean variant) {
    RecordedFlow f = new RecordedFlow(store.nextId(), Instant.ofEpochSecond(1_780_000_000L + i / 100), capture);
    boolean post = i % 7 == 0;
    String host = "host" + (i % 50) + ".example.com";
    f.clientProtocol(i % 3 == 0 ? "HTTP/2" : "HTTP/1.1");
    f.serverProtocol(i % 3 == 0 ? "HTTP/2" : "HTTP/1.1");
    long start = 1_000_000_000L + i * 200_000L;
    f.timings().requestStart(start);
    f.request(new RequestHead(post ? "POST" : "GET", "https", host, 443, "/api/v1/items/" + i + "?page=" + (i % 10),
        "HTTP/1.1", Headers.of("Host", host, "User-Agent", "bench/1.0", "Accept", "application/json",
            "Accept-Encoding", "gzip, br", "Authorization", "Bearer t" + (i % 100), "X-Request-Id", "r" + i,
            "Cookie", "session=s" + (i % 1000))));
    store.add(f);
    if (post) {
      f.requestBody().append(ByteBuffer.wrap(("{\"name\":\"item " + i + "\",\"tags\":[\"a\",\"b\"]}")
          .getBytes(StandardCharsets.UTF_8)));
    }
    int status = variant && i % 1000 == 0 ? 599 : i % 97 == 0 ? 503 : i % 31 == 0 ? 404 : post ? 201 : 200;
    String type = TYPES[i % TYPES.length];
    f.response(new ResponseHead(status, "", "HTTP/1.1", Headers.of("Content-Type", type, "Date",
        "Mon, 02 Mar 2026 10:00:00 GMT", "Cache-Control", "no-store", "Server", "origin/1", "X-Trace", "t" + i,
        "Vary", "Accept-Encoding")));
    StringBuilder body = new StringBuilder(1600).append("{\"id\":").append(i).append(",\"items\":[");
    int items = 2 + i % 20;
    for (int k = 0; k < items; k++) {
      body.append(k == 0 ? "" : ",").append("{\"k\":").append(k).append(",\"v\":\"value-").append((i * 31 + k) % 9973)
          .append("\"}");
    }
    body.append("],\"note\":\"").append(i == 424_242 ? "needle-424242" : "plain").append("\"}");
    f.responseBody().append(ByteBuffer.wrap(body.toString().getBytes(StandardCharsets.UTF_8)));
    f.timings().sendStart(start + 10_000);
    f.timings().sendEnd(start + 20_000);
    f.timings().responseStart(start + 2_000_000L + (i % 50) * 100_000L);
    f.timings().responseEnd(start + 2_500_000L + (i % 50) * 100_000L);
    f.complete();
    store.completed(f);
  }

  private static long[] firstIds(Session s, Filter f, int n) throws Exception {
    return firstIds(s, f, n, SortKey.ID, false);
  }

  private static long[] firstIds(Session s, Filter f, int n, SortKey key, boolean descending) throws Exception {
    List<Long> out = new ArrayList<>(n);
    s.ids(f, key, descending, id -> {
      out.add(id);
      return out.size() < n;
    }, () -> false);
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  private static long[] allIds(Session s, Filter f) throws Exception {
    long[][] buf = {new long[1024]};
    int[] size = {0};
    s.ids(f, SortKey.ID, false, id -> {
      if (size[0] == buf[0].length) {
        buf[0] = java.util.Arrays.copyOf(buf[0], buf[0].length * 2);
      }
      buf[0][size[0]++] = id;
      return true;
    }, () -> false);
    return java.util.Arrays.copyOf(buf[0], size[0]);
  }

  /** A kB figure from /proc/self/status (VmRSS now, VmHWM the peak) in bytes; -1 elsewhere. */
  private static long rss(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
        }
      }
    } catch (java.io.IOException ignored) {
      // not Linux
    }
    return -1;
  }

  /** CPU time of the session's writer thread so far, in ns (-1 when there is none). */
  private static long writerCpu() {
    var threads = ManagementFactory.getThreadMXBean();
    for (var info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().equals("loupe-session-writer")) {
        return threads.getThreadCpuTime(info.getThreadId());
      }
    }
    return -1;
  }

  /** CPU time of the whole process (every thread), in ns; -1 when the JVM does not tell. */
  private static long cpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime() : -1;
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException e) {
      return "?";
    }
  }

  private static String mib(long bytes) {
    return bytes < 0 ? "?" : String.format(Locale.ROOT, "%,.0f MiB", bytes / 1048576.0);
  }

  /** Samples heap use every 50 ms, keeping the highest. */
  private static final class Peak extends Thread {
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private volatile long max;

    Peak() {
      super("heap-peak");
      setDaemon(true);
    }

    long heapNow() {
      return memory.getHeapMemoryUsage().getUsed();
    }

    long maxHeap() {
      return max;
    }

    void reset() {
      max = 0;
    }

    @Override
    public void run() {
      while (!isInterrupted()) {
        max = Math.max(max, heapNow());
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }
}
