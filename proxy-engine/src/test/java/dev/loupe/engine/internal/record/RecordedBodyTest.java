package dev.loupe.engine.internal.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loupe.engine.flow.CapturePolicy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class RecordedBodyTest {
  @TempDir Path spillDir;

  @Test
  void underTheCapEverythingStaysInMemory() throws IOException {
    RecordedBody body = new RecordedBody(new CapturePolicy(16, true, spillDir));
    byte[] data = bytes(10, 1);
    append(body, data, 3);
    body.complete();
    assertThat(body.spilled()).isFalse();
    assertThat(body.truncated()).isFalse();
    assertThat(body.size()).isEqualTo(10);
    assertThat(body.capturedSize()).isEqualTo(10);
    assertThat(body.bytes()).isEqualTo(data);
    assertThat(body.memoryFootprint()).isBetween(10L, 16L);
    assertThat(spillFiles()).isEmpty();
  }

  @Test
  void overTheCapTheRestSpillsToAFile() throws IOException {
    RecordedBody body = new RecordedBody(new CapturePolicy(8, true, spillDir));
    byte[] data = bytes(20, 2);
    append(body, data, 7);
    body.complete();
    assertThat(body.spilled()).isTrue();
    assertThat(body.truncated()).isFalse();
    assertThat(body.size()).isEqualTo(20);
    assertThat(body.capturedSize()).isEqualTo(20);
    assertThat(body.memoryFootprint()).isLessThanOrEqualTo(8);
    assertThat(body.bytes()).isEqualTo(data);
    assertThat(readAll(body)).isEqualTo(data);
    assertThat(spillFiles()).hasSize(1);
  }

  @Test
  void withSpillingOffTheRestIsCountedAndTheBodyTruncated() throws IOException {
    RecordedBody body = new RecordedBody(new CapturePolicy(8, false, spillDir));
    byte[] data = bytes(20, 3);
    append(body, data, 5);
    body.complete();
    assertThat(body.truncated()).isTrue();
    assertThat(body.size()).isEqualTo(20);
    assertThat(body.capturedSize()).isEqualTo(8);
    assertThat(body.bytes()).isEqualTo(java.util.Arrays.copyOf(data, 8));
    assertThat(readAll(body)).isEqualTo(java.util.Arrays.copyOf(data, 8));
    assertThat(body.spilled()).isFalse();
    assertThat(spillFiles()).isEmpty();
  }

  @Test
  void afterASpillFailureLaterBytesAreOnlyCounted() throws IOException {
    Path notADirectory = Files.writeString(spillDir.resolve("file"), "x");
    RecordedBody body = new RecordedBody(new CapturePolicy(4, true, notADirectory));
    byte[] data = bytes(12, 4);
    append(body, data, 4);
    body.complete();
    assertThat(body.truncated()).isTrue();
    assertThat(body.size()).isEqualTo(12);
    // what is kept is an exact prefix, never a prefix with a hole in it
    assertThat(body.bytes()).isEqualTo(java.util.Arrays.copyOf(data, (int) body.capturedSize()));
    assertThat(body.capturedSize()).isEqualTo(4);
  }

  @Test
  void appendLeavesTheSourcePositionAlone() {
    RecordedBody body = new RecordedBody(new CapturePolicy(4, true, spillDir));
    ByteBuffer src = ByteBuffer.wrap(bytes(10, 5));
    src.position(2);
    body.append(src);
    assertThat(src.position()).isEqualTo(2);
    assertThat(body.size()).isEqualTo(8);
  }

  /** A source read through {@link RecordedBody.Bytes}: a window of an array, as a Netty buffer's readable bytes are. */
  private static final RecordedBody.Bytes<byte[]> ARRAY = new RecordedBody.Bytes<>() {
    @Override
    public void get(byte[] src, int index, byte[] dst, int dstIndex, int length) {
      System.arraycopy(src, index, dst, dstIndex, length);
    }

    @Override
    public ByteBuffer view(byte[] src, int index, int length) {
      return ByteBuffer.wrap(src, index, length);
    }
  };

  @Test
  void appendThroughBytesKeepsSpillsAndTruncatesLikeAByteBuffer() throws IOException {
    for (boolean spill : new boolean[] {true, false}) {
      for (int cap : new int[] {0, 5, 8, 300, 1000}) {
        byte[] data = bytes(600, cap + (spill ? 1 : 2));
        RecordedBody viaBuffer = new RecordedBody(new CapturePolicy(cap, spill, spillDir));
        RecordedBody viaBytes = new RecordedBody(new CapturePolicy(cap, spill, spillDir));
        for (int off = 0, chunk = 1; off < data.length; off += chunk, chunk = chunk * 2 + 1) {
          int n = Math.min(chunk, data.length - off);
          viaBuffer.append(ByteBuffer.wrap(data, off, n));
          byte[] padded = new byte[n + 7]; // the bytes sit at index 3, with others around them
          System.arraycopy(data, off, padded, 3, n);
          viaBytes.append(padded, 3, n, ARRAY);
        }
        viaBuffer.complete();
        viaBytes.complete();
        String at = "cap " + cap + ", spill " + spill;
        assertThat(viaBytes.size()).as(at).isEqualTo(viaBuffer.size()).isEqualTo(600);
        assertThat(viaBytes.truncated()).as(at).isEqualTo(viaBuffer.truncated()).isEqualTo(!spill && cap < 600);
        assertThat(viaBytes.spilled()).as(at).isEqualTo(viaBuffer.spilled());
        assertThat(viaBytes.capturedSize()).as(at).isEqualTo(viaBuffer.capturedSize());
        assertThat(viaBytes.bytes()).as(at).isEqualTo(viaBuffer.bytes());
        assertThat(readAll(viaBytes)).as(at).isEqualTo(spill ? data : java.util.Arrays.copyOf(data, Math.min(cap, data.length)));
      }
    }
  }

  @Test
  void spillToDiskKeepsEveryByteAndFreesTheHeap() throws IOException {
    RecordedBody body = new RecordedBody(new CapturePolicy(64, true, spillDir));
    byte[] data = bytes(40, 6);
    append(body, data, 40);
    body.complete();
    long footprint = body.memoryFootprint();
    assertThat(body.spillToDisk()).isEqualTo(footprint).isPositive();
    assertThat(body.memoryFootprint()).isZero();
    assertThat(body.spilled()).isTrue();
    assertThat(body.bytes()).isEqualTo(data);
    assertThat(readAll(body)).isEqualTo(data);
    assertThat(body.spillToDisk()).as("nothing left to move").isZero();
  }

  @Test
  void spillToDiskOfAPartlySpilledBodyJoinsBothPartsIntoOneFile() throws IOException {
    RecordedBody body = new RecordedBody(new CapturePolicy(1024, true, spillDir));
    byte[] data = bytes(5 * 1024 * 1024 + 17, 7);
    append(body, data, 64 * 1024);
    body.complete();
    assertThat(spillFiles()).hasSize(1);
    assertThat(body.spillToDisk()).isEqualTo(1024);
    assertThat(spillFiles()).as("the old spill file is deleted").hasSize(1);
    assertThat(body.capturedSize()).isEqualTo(data.length);
    assertThat(body.bytes()).isEqualTo(data);
    assertThat(readAll(body)).isEqualTo(data);
  }

  @Test
  void appendsAfterSpillToDiskGoOnInTheFile() throws IOException {
    RecordedBody body = new RecordedBody(new CapturePolicy(1024, true, spillDir));
    byte[] data = bytes(3000, 8);
    body.append(ByteBuffer.wrap(data, 0, 500));
    body.spillToDisk(); // the store only does this to completed flows, but it must not lose bytes
    body.append(ByteBuffer.wrap(data, 500, 2500));
    body.complete();
    assertThat(body.bytes()).isEqualTo(data);
  }

  @Test
  void openStreamReadsTheSameBytesAsBytesEvenOneByteAtATime() throws IOException {
    RecordedBody body = new RecordedBody(new CapturePolicy(10, true, spillDir));
    byte[] data = bytes(1000, 9);
    append(body, data, 33);
    body.complete();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (InputStream in = body.openStream()) {
      int b;
      while ((b = in.read()) >= 0) {
        out.write(b);
      }
    }
    assertThat(out.toByteArray()).isEqualTo(body.bytes()).isEqualTo(data);
  }

  @Test
  void releaseDeletesTheSpillFile() throws IOException {
    RecordedBody body = new RecordedBody(new CapturePolicy(8, true, spillDir));
    byte[] data = bytes(100, 10);
    append(body, data, 100);
    body.complete();
    assertThat(spillFiles()).hasSize(1);
    body.release();
    assertThat(spillFiles()).isEmpty();
    assertThat(body.spilled()).isFalse();
    assertThat(body.bytes()).isEqualTo(java.util.Arrays.copyOf(data, 8));
    body.release(); // twice is fine
  }

  @Test
  void completedSpilledBodiesHoldNoFileDescriptors() throws IOException {
    Path fds = Path.of("/proc/self/fd");
    assumeTrue(Files.isDirectory(fds), "needs /proc/self/fd");
    long before = count(fds);
    List<RecordedBody> bodies = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      RecordedBody body = new RecordedBody(new CapturePolicy(4, true, spillDir));
      body.append(ByteBuffer.wrap(bytes(64, i)));
      body.complete();
      bodies.add(body);
    }
    for (int i = 0; i < 300; i++) {
      RecordedBody body = new RecordedBody(new CapturePolicy(64, true, spillDir));
      body.append(ByteBuffer.wrap(bytes(64, i)));
      body.complete();
      body.spillToDisk();
      bodies.add(body);
    }
    assertThat(count(fds) - before).isLessThan(50);
    assertThat(bodies).allMatch(RecordedBody::spilled);
    assertThat(bodies.get(0).bytes()).isEqualTo(bytes(64, 0));
    bodies.forEach(RecordedBody::release);
    assertThat(spillFiles()).isEmpty();
  }

  @Test
  void ofMakesACompleteBody() {
    byte[] data = bytes(5, 11);
    RecordedBody body = RecordedBody.of(data);
    assertThat(body.isComplete()).isTrue();
    assertThat(body.bytes()).isEqualTo(data);
    assertThat(body.size()).isEqualTo(5);
    assertThat(RecordedBody.of(new byte[0]).size()).isZero();
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static void append(RecordedBody body, byte[] data, int chunk) {
    for (int off = 0; off < data.length; off += chunk) {
      body.append(ByteBuffer.wrap(data, off, Math.min(chunk, data.length - off)));
    }
  }

  private static byte[] readAll(RecordedBody body) throws IOException {
    try (InputStream in = body.openStream()) {
      return in.readAllBytes();
    }
  }

  private static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private List<Path> spillFiles() throws IOException {
    try (Stream<Path> s = Files.list(spillDir)) {
      return s.filter(p -> p.getFileName().toString().startsWith("loupe-body-")).toList();
    }
  }

  private static long count(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.count();
    }
  }

  @Test
  void aLargeBodyIsKeptInChunksWithoutCopiesOrHumongousArrays() throws IOException {
    int cap = 1 << 20;
    RecordedBody body = new RecordedBody(new CapturePolicy(cap, true, spillDir));
    java.util.Random r = new java.util.Random(7);
    java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
    while (expected.size() < cap + 5000) { // past the cap: the tail spills
      byte[] piece = new byte[1 + r.nextInt(20_000)];
      r.nextBytes(piece);
      body.append(ByteBuffer.wrap(piece));
      expected.write(piece);
    }
    body.complete();
    byte[] all = expected.toByteArray();
    assertThat(body.size()).isEqualTo(all.length);
    assertThat(body.bytes()).isEqualTo(all);
    try (java.io.InputStream in = body.openStream()) {
      assertThat(in.readAllBytes()).isEqualTo(all);
    }
    // Heap held: the capped part, with at most one partly used chunk of slack.
    assertThat(body.memoryFootprint()).isBetween((long) cap, (long) cap + 64 * 1024);
    assertThat(body.spilled()).isTrue();

    long held = body.memoryFootprint();
    assertThat(body.spillToDisk()).isEqualTo(held);
    assertThat(body.memoryFootprint()).isZero();
    assertThat(body.bytes()).isEqualTo(all);
  }

  /** A body read at once keeps exactly its bytes; one that grows goes on in chunks, every byte in order. */
  @Test
  void aBodyReadAtOnceKeepsNoSpareBytes() throws IOException {
    for (int n : new int[] {1, 13, 255, 256, 257, 4000}) {
      RecordedBody body = new RecordedBody(new CapturePolicy(1 << 20, true, spillDir));
      byte[] data = bytes(n, n);
      body.append(ByteBuffer.wrap(data));
      body.complete();
      assertThat(body.memoryFootprint()).isEqualTo(n);
      assertThat(body.bytes()).isEqualTo(data);
      assertThat(readAll(body)).isEqualTo(data);
    }
    RecordedBody empty = new RecordedBody(new CapturePolicy(1 << 20, true, spillDir));
    empty.complete();
    assertThat(empty.bytes()).isEmpty();
    assertThat(readAll(empty)).isEmpty();
    assertThat(empty.memoryFootprint()).isZero();
    for (int piece : new int[] {1, 13, 300}) {
      RecordedBody body = new RecordedBody(new CapturePolicy(1 << 20, true, spillDir));
      byte[] data = bytes(5000, piece);
      append(body, data, piece);
      body.complete();
      assertThat(body.bytes()).isEqualTo(data);
      assertThat(readAll(body)).isEqualTo(data);
      // the first piece exactly, then chunks of at least 256 bytes that double: little slack
      assertThat(body.memoryFootprint()).isBetween(5000L, 5000L + 5000L);
      body.discard();
      assertThat(body.memoryFootprint()).isZero();
    }
  }
}
