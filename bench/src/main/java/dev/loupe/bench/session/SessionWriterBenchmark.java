package dev.loupe.bench.session;

import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.engine.internal.session.SessionFile;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The session writer's CPU per flow for flows shaped like the load probe's (reverse mode, TLS on
 * both legs, HTTP/1.1 keep-alive on 16 connections, a tiny GET answered 200 with nginx's headers and
 * a 13-byte body): what headless {@code --session} adds per request, without sockets, TLS or a load
 * generator competing for the CPU. Flows are made at a fixed rate (default 20,000 a second, in bursts
 * of 512) so the writer's batches look like a live proxy's; 16 are in flight at any time.
 *
 * <p>{@code bench/session-writer.sh [N] [RATE] [rolling]}; prints the writer thread's CPU (and
 * allocation) per flow, the process's, GC, and RSS. {@code rolling}: the same flows into headless's
 * default rolling store (newest 1000) without a session, the control for the process's and GC's
 * figures. A/B: put another build's engine classes first on the class path. {@code
 * -Dloupe.bench.indexing=LIVE} (or another {@link Session.Indexing}) records as the window does; the
 * default is headless {@code --session}'s {@code DEFERRED}.
 */
public final class SessionWriterBenchmark {
  private SessionWriterBenchmark() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int rate = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    Path dir = Files.createTempDirectory("loupe-writer-bench");
    Path file = dir.resolve("bench.loupe");
    CapturePolicy capture = CapturePolicy.defaults();
    InetAddress lo = InetAddress.getByName("127.0.0.1");
    TlsInfo clientTls = new TlsInfo(null, "TLSv1.3", "TLS_AES_128_GCM_SHA256", "http/1.1", List.of(), false);
    TlsInfo serverTls = new TlsInfo(null, "TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "http/1.1", List.of(),
        false);
    int conns = 16;
    InetSocketAddress[][] addr = new InetSocketAddress[conns][4];
    for (int c = 0; c < conns; c++) {
      addr[c][0] = new InetSocketAddress(lo, 40000 + c);
      addr[c][1] = new InetSocketAddress(lo, 34127);
      addr[c][2] = new InetSocketAddress(lo, 31000);
      addr[c][3] = new InetSocketAddress(lo, 50000 + c);
    }
    RecordedFlow[] open = new RecordedFlow[conns];
    boolean rolling = args.length > 2 && args[2].equals("rolling");
    RecordingStore store = rolling ? RecordingStore.rolling(1000, 32L << 20) : new RecordingStore();
    long cpu0 = cpuNanos();
    long gc0 = gcMillis();
    long t0 = System.nanoTime();
    // -Dloupe.bench.indexing=LIVE|ON_DEMAND: as the window records (default DEFERRED: headless --session)
    Session.Indexing indexing = Session.Indexing.valueOf(System.getProperty("loupe.bench.indexing", "DEFERRED"));
    try (SessionFile s = rolling ? null : SessionFile.open(file, dir, indexing)) {
      if (s != null) {
        s.record(store, p -> System.out.println("PROBLEM: " + p));
      }
      for (int i = 0; i < n; i++) {
        int c = i % conns;
        if (open[c] != null) {
          finish(store, open[c], i);
        }
        RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), capture);
        f.clientProtocol("HTTP/1.1");
        f.serverProtocol("HTTP/1.1");
        f.clientConnection(new ConnectionInfo(c, addr[c][0], addr[c][1], clientTls, i >= conns));
        f.timings().requestStart(System.nanoTime());
        f.request(new RequestHead("GET", "https", "127.0.0.1", 34127, "/small", "HTTP/1.1",
            Headers.of("Host", "127.0.0.1:34127", "user-agent", "h2load nghttp2/1.52.0")));
        store.add(f);
        f.serverConnection(new ConnectionInfo(1000 + c, addr[c][2], addr[c][3], serverTls, i >= conns));
        store.updated(f);
        open[c] = f;
        if ((i & 511) == 511) { // paced in bursts of 512 flows; sleeping, not spinning, between them
          long ahead = t0 + (long) (i + 1) * 1_000_000_000L / rate - System.nanoTime();
          if (ahead > 0) {
            Thread.sleep(ahead / 1_000_000, (int) (ahead % 1_000_000));
          }
        }
        if ((i & 0xFFFF) == 0xFFFF) {
          System.out.printf(Locale.ROOT, "  %,d flows, waiting %,d, heap %d MiB%n", i + 1,
              s == null ? 0 : s.stats().pending(),
              (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20);
        }
      }
      for (RecordedFlow f : open) {
        finish(store, f, n);
      }
      if (s != null) {
        s.flush();
      }
      long wall = System.nanoTime() - t0;
      long writer = writerCpu();
      long allocated = writerAllocated();
      System.out.printf(Locale.ROOT, "%s%,d flows in %.1f s (%,.0f/s): writer %.2f µs/flow, %,d B/flow allocated,"
          + " process %.1f µs/flow, GC %d ms, RSS %d MiB (peak %d), waiting %d%n", rolling ? "rolling store, " : "",
          n, wall / 1e9, n / (wall / 1e9), writer / 1e3 / n, allocated / n, (cpuNanos() - cpu0) / 1e3 / n,
          gcMillis() - gc0, rss("VmRSS") >> 20, rss("VmHWM") >> 20, s == null ? 0 : s.stats().pending());
    }
    if (Boolean.getBoolean("loupe.bench.keep")) {
      System.out.println("kept " + file);
      return;
    }
    try (var files = Files.list(dir)) {
      for (Path p : files.toList()) {
        Files.deleteIfExists(p);
      }
    }
    Files.deleteIfExists(dir);
  }

  private static void finish(RecordingStore store, RecordedFlow f, int i) {
    f.timings().sendStart(f.timings().requestStartNanos() + 10_000);
    f.timings().sendEnd(f.timings().requestStartNanos() + 20_000);
    f.timings().responseStart(System.nanoTime());
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Server", "nginx/1.22.1", "Date",
        "Wed, 02 Dec 2026 18:06:09 GMT", "Content-Type", "text/plain", "Content-Length", "13", "Last-Modified",
        "Wed, 02 Dec 2026 18:06:00 GMT", "Connection", "keep-alive", "ETag", "\"6b105e08-d\"", "Accept-Ranges",
        "bytes")));
    store.updated(f);
    f.responseBody().append(ByteBuffer.wrap("hello, world\n".getBytes(StandardCharsets.US_ASCII)));
    f.timings().responseEnd(System.nanoTime());
    f.complete();
    store.completed(f);
  }

  private static long writerCpu() {
    var threads = ManagementFactory.getThreadMXBean();
    for (var info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().equals("loupe-session-writer")) {
        return threads.getThreadCpuTime(info.getThreadId());
      }
    }
    return -1;
  }

  /** Bytes the writer thread allocated so far (HotSpot's per-thread counter), or -1. */
  private static long writerAllocated() {
    if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads)) {
      return -1;
    }
    for (var info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().equals("loupe-session-writer")) {
        return threads.getThreadAllocatedBytes(info.getThreadId());
      }
    }
    return -1;
  }

  private static long cpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime() : -1;
  }

  private static long gcMillis() {
    long t = 0;
    for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      t += Math.max(0, gc.getCollectionTime());
    }
    return t;
  }

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
}
