package dev.loupe.engine.flow.har;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * 100,000 flows, made one at a time on demand, go out as a HAR without the writer keeping them:
 * flows handed out early become garbage while later ones are still being written. No timing is
 * asserted.
 */
@Timeout(300)
class HarStreamingTest {
  private static final int FLOWS = 100_000;
  /** Flows whose collection is checked, and the point of the stream where it is checked. */
  private static final int WATCHED = 1_000;
  private static final int CHECK_AT = 50_000;

  @TempDir Path dir;

  @Test
  void writesOneHundredThousandFlowsWithoutHoldingThem() throws IOException {
    LazyFlows flows = new LazyFlows();
    Path file = dir.resolve("big.har");
    long written;
    try (CountingOutputStream counting = new CountingOutputStream(Files.newOutputStream(file));
        OutputStream out = new BufferedOutputStream(counting, 1 << 16)) {
      HarWriter.write(flows, out);
      out.flush();
      written = counting.count;
    }

    assertThat(flows.made).isEqualTo(FLOWS);
    assertThat(flows.watchedCollectedAtCheck)
        .as("flows already written must not be reachable from the writer")
        .isEqualTo(WATCHED);
    assertThat(written).isEqualTo(Files.size(file)).isGreaterThan(FLOWS * 512L);
    assertThat(countEntries(file)).isEqualTo(FLOWS);
  }

  /** Counts {@code log.entries} with the streaming parser, skipping each entry's content. */
  private static long countEntries(Path file) throws IOException {
    long entries = 0;
    try (InputStream in = Files.newInputStream(file);
        JsonParser p = new JsonFactory().createParser(in)) {
      while (p.nextToken() != null) {
        if (p.currentToken() == JsonToken.FIELD_NAME && "entries".equals(p.currentName())
            && p.getParsingContext().getParent().getParent().inRoot()) {
          assertThat(p.nextToken()).isEqualTo(JsonToken.START_ARRAY);
          while (p.nextToken() == JsonToken.START_OBJECT) {
            p.skipChildren();
            entries++;
          }
        }
      }
    }
    return entries;
  }

  /** Makes each flow when asked; remembers only weak references to the first {@link #WATCHED}. */
  private static final class LazyFlows implements Iterable<Flow> {
    private final List<WeakReference<Flow>> watched = new ArrayList<>();
    int made;
    int watchedCollectedAtCheck = -1;

    @Override
    public Iterator<Flow> iterator() {
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return made < FLOWS;
        }

        @Override
        public RecordedFlow next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          if (made == CHECK_AT) {
            watchedCollectedAtCheck = collectWatched();
          }
          RecordedFlow f = flow(made++);
          if (watched.size() < WATCHED) {
            watched.add(new WeakReference<>(f));
          }
          return f;
        }
      };
    }

    /** Asks for GC until every watched flow is gone (or a few rounds pass); returns how many are. */
    private int collectWatched() {
      int collected = 0;
      for (int round = 0; round < 20 && collected < WATCHED; round++) {
        System.gc();
        collected = (int) watched.stream().filter(r -> r.get() == null).count();
      }
      return collected;
    }

    private static RecordedFlow flow(int i) {
      RecordedFlow f = new RecordedFlow(i + 1, Instant.ofEpochSecond(1_764_468_618L, i * 1_000_000L), CapturePolicy.defaults());
      f.request(new RequestHead("GET", "https", "bulk.example", 443, "/item/" + i + "?page=" + (i % 7), "HTTP/1.1",
          Headers.of("Host", "bulk.example", "Accept", "application/json")));
      f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Content-Type", "application/json")));
      byte[] body = ("{\"id\":" + i + ",\"pad\":\"" + "x".repeat(512) + "\"}").getBytes(StandardCharsets.US_ASCII);
      f.responseBody().append(ByteBuffer.wrap(body));
      f.timings().requestStart(1_000);
      f.timings().sendStart(2_000);
      f.timings().sendEnd(3_000);
      f.timings().responseStart(4_000_000);
      f.timings().responseEnd(5_000_000);
      f.complete();
      return f;
    }
  }

  private static final class CountingOutputStream extends FilterOutputStream {
    long count;

    CountingOutputStream(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      count += len;
    }
  }
}
