package dev.loupe.bench;

import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of running one compiled {@link Filter} over a session of 100,000 flows, as the filter bar
 * does on every keystroke: the score is milliseconds per pass over all 100k.
 *
 * <p>The flows (built once) look like browser traffic: a few hosts, mostly GETs, 4xx/5xx and slow
 * responses sprinkled in, and a JSON response body of 200–1,500 bytes on every flow, about one in
 * 50 containing {@code "error":}. The filters: host and method ({@code ~d api & ~m POST}), typed
 * comparisons ({@code status>=400 | duration>500ms}), a bare URL regex, and a body regex.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class FilterBenchmark {
  static final int FLOWS = 100_000;

  private static final String[] HOSTS = {"api.example.com", "www.example.com", "cdn.example.net", "tracker.ads.test"};
  private static final String[] PATHS = {"/v1/users/", "/v1/orders/", "/static/app.", "/img/logo-", "/collect?id="};

  @Param({"~d api & ~m POST", "status>=400 | duration>500ms", "/v1/users/\\d+$", "~b '\"error\":'"})
  public String expression;

  private RecordedFlow[] flows;
  private Filter filter;

  @Setup
  public void buildFlows() {
    filter = Filter.parse(expression);
    Random rnd = new Random(42);
    CapturePolicy capture = CapturePolicy.defaults();
    flows = new RecordedFlow[FLOWS];
    for (int i = 0; i < FLOWS; i++) {
      flows[i] = flow(i, rnd, capture);
    }
  }

  private static RecordedFlow flow(int i, Random rnd, CapturePolicy capture) {
    RecordedFlow flow = new RecordedFlow(i, Instant.EPOCH.plusMillis(i), capture);
    String host = HOSTS[rnd.nextInt(HOSTS.length)];
    String method = rnd.nextInt(5) == 0 ? "POST" : "GET";
    String target = PATHS[rnd.nextInt(PATHS.length)] + rnd.nextInt(100_000);
    flow.clientProtocol(rnd.nextBoolean() ? "HTTP/2" : "HTTP/1.1");
    flow.serverProtocol("HTTP/1.1");
    flow.request(new RequestHead(method, "https", host, 443, target, "HTTP/2", Headers.of(
        "Accept", "application/json, text/plain, */*",
        "Accept-Encoding", "gzip, deflate, br",
        "Accept-Language", "en-GB,en;q=0.9",
        "User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
        "Cookie", "sid=" + Long.toHexString(rnd.nextLong()))));
    flow.timings().requestStart(1_000_000_000L);
    int roll = rnd.nextInt(100);
    int status = roll < 85 ? 200 : roll < 90 ? 304 : roll < 97 ? 404 : 500;
    flow.response(new ResponseHead(status, "", "HTTP/1.1", Headers.of(
        "Content-Type", "application/json; charset=utf-8",
        "Cache-Control", "private, max-age=0",
        "Date", "Tue, 01 Dec 2026 12:00:00 GMT",
        "Server", "nginx")));
    flow.responseBody().append(ByteBuffer.wrap(jsonBody(rnd)));
    long millis = rnd.nextInt(100) < 5 ? 500 + rnd.nextInt(3000) : 5 + rnd.nextInt(300);
    flow.timings().responseEnd(1_000_000_000L + millis * 1_000_000L);
    flow.complete();
    return flow;
  }

  private static byte[] jsonBody(Random rnd) {
    StringBuilder json = new StringBuilder("{\"items\":[");
    int target = 200 + rnd.nextInt(1300);
    while (json.length() < target) {
      json.append("{\"id\":").append(rnd.nextInt(1_000_000)).append(",\"name\":\"item\",\"ok\":true},");
    }
    json.setLength(json.length() - 1);
    json.append(rnd.nextInt(50) == 0 ? "],\"error\":\"quota\"}" : "]}");
    return json.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** One pass of the filter over all 100k flows; returns the match count so nothing is optimised away. */
  @Benchmark
  public int matchAll() {
    int matched = 0;
    for (RecordedFlow f : flows) {
      if (filter.test(f)) {
        matched++;
      }
    }
    return matched;
  }
}
