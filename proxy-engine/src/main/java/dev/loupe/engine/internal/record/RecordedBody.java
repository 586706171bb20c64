package dev.loupe.engine.internal.record;

import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.CapturePolicy;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The engine's side of a {@link Body}: the one capturing implementation, with the methods that
 * record it ({@link #append}, {@link #complete}) and manage its storage ({@link #spillToDisk},
 * {@link #release}, {@link #discard}). The legs, the full tier, replay and the session store write
 * through these; everything outside the engine sees the read-only {@link Body}.
 *
 * <p>A captured message body: the first {@link CapturePolicy#memoryCap()} bytes in memory, the rest in a
 * spill file (or only counted, and the body marked truncated, when spilling is off).
 *
 * <h3>Threads</h3>
 * Appends come from one thread at a time (the leg's event loop). Readers on other threads see a
 * consistent prefix: {@link #size()} is published after the bytes it counts. Methods that read the
 * content are meant for after {@link #isComplete()}, but are safe (they see a prefix) before.
 *
 * <h3>Spill files</h3>
 * The spill file is held open for writing only while the body is still being appended to; once
 * {@link #complete()} it is closed, and readers open it on demand. A session of many spilled
 * flows therefore holds no file descriptors. What is kept is always an exact prefix of what was
 * seen: after the first byte that could not be kept, later bytes are only counted.
 */
public final class RecordedBody implements Body {
  private final CapturePolicy policy;
  private final Object lock = new Object();
  /**
   * The in-memory part, in chunks of growing size up to {@value #MAX_CHUNK} bytes: appending never
   * copies what is already kept (a doubling array copies every body about twice) and no chunk is
   * large enough to be a G1 humongous object (half a region, 512 KiB at the smallest region size).
   * The first chunk is exactly the first append's length (a body read at once, the common small
   * one, keeps no spare bytes), the next ones at least {@value #MIN_CHUNK} and double. {@link
   * #first} holds the first chunk and {@link #rest} the others, made on the second: a body without
   * bytes (most requests) or of one chunk has no list.
   */
  private byte[] first;
  private java.util.ArrayList<byte[]> rest;
  private static final int MIN_CHUNK = 256;
  private static final int MAX_CHUNK = ChunkPool.CHUNK;
  /** Bytes used in the last chunk. */
  private int lastUsed;
  /** Sum of the chunks' lengths (heap held). */
  private int allocated;
  private int memoryLength;
  /** Open for writing while appends may come; null once complete (and before the first spill). */
  private FileChannel spillChannel;
  /** Non-null once any byte lives on disk. Guarded by lock. */
  private Path spillFile;
  private long spilledLength;
  private volatile long size;
  private volatile boolean truncated;
  private volatile boolean complete;

  public RecordedBody(CapturePolicy policy) {
    this.policy = policy;
  }

  /** A finished body holding {@code bytes} (for tests, replays and imports). */
  public static RecordedBody of(byte[] bytes) {
    RecordedBody b = new RecordedBody(new CapturePolicy(Math.max(bytes.length, 0), false, Path.of(".")));
    b.append(ByteBuffer.wrap(bytes));
    b.complete();
    return b;
  }

  /**
   * Where {@link #append(Object, int, int, Bytes)} copies from: a buffer type other than {@link
   * ByteBuffer} (a Netty buffer), read in place, so a capture needs no {@code ByteBuffer} view of it.
   */
  public interface Bytes<T> {
    /** Copies {@code length} bytes of {@code src} from {@code index} into {@code dst} at {@code dstIndex}. */
    void get(T src, int index, byte[] dst, int dstIndex, int length);

    /** {@code length} bytes of {@code src} from {@code index} as a buffer (only for bytes that spill to disk). */
    ByteBuffer view(T src, int index, int length);
  }

  private static final Bytes<ByteBuffer> BYTE_BUFFER = new Bytes<>() {
    @Override
    public void get(ByteBuffer src, int index, byte[] dst, int dstIndex, int length) {
      src.get(index, dst, dstIndex, length);
    }

    @Override
    public ByteBuffer view(ByteBuffer src, int index, int length) {
      return src.slice(index, length);
    }
  };

  /** Captures the readable bytes of {@code src} (its position is left unchanged). */
  public void append(ByteBuffer src) {
    append(src, src.position(), src.remaining(), BYTE_BUFFER);
  }

  /** Captures {@code len} bytes of {@code src} from {@code index}, read through {@code bytes} (nothing of {@code src} changes). */
  public <T> void append(T src, int index, int len, Bytes<T> bytes) {
    if (len == 0) {
      return;
    }
    synchronized (lock) {
      if (truncated) {
        // Something was already lost: keeping later bytes would leave a gap in the capture.
        size += len;
        return;
      }
      int toMemory = (int) Math.min(len, (long) policy.memoryCap() - memoryLength);
      int kept = 0;
      if (toMemory > 0 && spillFile == null) {
        keep(src, index, toMemory, bytes);
        kept = toMemory;
      }
      if (kept < len) {
        if (policy.spill()) {
          writeSpill(bytes.view(src, index + kept, len - kept));
        } else {
          truncated = true;
        }
      }
      size += len;
    }
  }

  /** Copies {@code n} bytes of {@code src} from {@code index} into the chunks, adding chunks as needed. */
  private <T> void keep(T src, int index, int n, Bytes<T> bytes) {
    int left = n;
    while (left > 0) {
      byte[] last = first == null ? null : chunk(chunkCount() - 1);
      if (last == null || lastUsed == last.length) {
        int size = last == null ? Math.min(MAX_CHUNK, left)
            : Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, Math.max(left, last.length * 2)));
        size = (int) Math.min(size, Math.max(left, (long) policy.memoryCap() - allocated));
        last = size == MAX_CHUNK ? ChunkPool.SHARED.take() : new byte[size];
        addChunk(last);
        allocated += size;
        lastUsed = 0;
      }
      int m = Math.min(left, last.length - lastUsed);
      bytes.get(src, index, last, lastUsed, m);
      index += m;
      lastUsed += m;
      left -= m;
      memoryLength += m;
    }
  }

  private int chunkCount() {
    return first == null ? 0 : rest == null ? 1 : 1 + rest.size();
  }

  private byte[] chunk(int i) {
    return i == 0 ? first : rest.get(i - 1);
  }

  private void addChunk(byte[] c) {
    if (first == null) {
      first = c;
    } else {
      if (rest == null) {
        rest = new java.util.ArrayList<>(4);
      }
      rest.add(c);
    }
  }

  private void clearChunks() {
    first = null;
    rest = null;
  }

  /** The used length of chunk {@code i}. */
  private int chunkLength(int i) {
    return i == chunkCount() - 1 ? lastUsed : chunk(i).length;
  }

  private void writeSpill(ByteBuffer in) {
    try {
      if (spillChannel == null) {
        if (spillFile == null) {
          Files.createDirectories(policy.spillDir());
          spillFile = Files.createTempFile(policy.spillDir(), "loupe-body-", ".bin");
          spillFile.toFile().deleteOnExit();
        }
        spillChannel = FileChannel.open(spillFile, StandardOpenOption.WRITE);
      }
      while (in.hasRemaining()) {
        spilledLength += spillChannel.write(in, spilledLength);
      }
    } catch (IOException e) {
      // A full disk must not break the relay: keep counting, mark the capture truncated.
      truncated = true;
    }
  }

  /** Marks the body finished and closes the spill file for writing (readers reopen it). */
  public void complete() {
    synchronized (lock) {
      complete = true;
      closeSpillChannel();
    }
  }

  private void closeSpillChannel() {
    if (spillChannel != null) {
      try {
        spillChannel.close();
      } catch (IOException ignored) {
        // nothing was buffered: positional writes went straight to the file
      }
      spillChannel = null;
    }
  }

  @Override
  public boolean isComplete() {
    return complete;
  }

  /** Total body length seen on the wire (after transfer decoding, before content decoding). */
  @Override
  public long size() {
    return size;
  }

  /** True when bytes were seen but not kept. */
  @Override
  public boolean truncated() {
    return truncated;
  }

  /** Bytes kept (memory + spill file). */
  @Override
  public long capturedSize() {
    synchronized (lock) {
      return memoryLength + spilledLength;
    }
  }

  /** Bytes of this body held on the Java heap. */
  @Override
  public long memoryFootprint() {
    synchronized (lock) {
      return allocated;
    }
  }

  /** Whether part of the body lives in a spill file. */
  @Override
  public boolean spilled() {
    synchronized (lock) {
      return spillFile != null;
    }
  }

  /** All captured bytes; throws if they do not fit an array. */
  @Override
  public byte[] bytes() {
    synchronized (lock) {
      long total = (long) memoryLength + spilledLength;
      if (total > Integer.MAX_VALUE - 16) {
        throw new IllegalStateException("body too large for an array: " + total + " bytes");
      }
      byte[] out = new byte[(int) total];
      int at = 0;
      for (int i = 0; i < chunkCount(); i++) {
        int len = chunkLength(i);
        System.arraycopy(chunk(i), 0, out, at, len);
        at += len;
      }
      if (spilledLength > 0) {
        ByteBuffer dst = ByteBuffer.wrap(out, memoryLength, (int) spilledLength);
        try (FileChannel in = FileChannel.open(spillFile, StandardOpenOption.READ)) {
          long pos = 0;
          while (dst.hasRemaining()) {
            int n = in.read(dst, pos);
            if (n < 0) {
              break;
            }
            pos += n;
          }
        } catch (IOException e) {
          throw new UncheckedIOException("reading spilled body " + spillFile, e);
        }
      }
      return out;
    }
  }

  /** A stream over the captured bytes (memory part, then spill file). */
  @Override
  public InputStream openStream() throws IOException {
    synchronized (lock) {
      java.util.List<InputStream> parts = new java.util.ArrayList<>(chunkCount());
      for (int i = 0; i < chunkCount(); i++) {
        parts.add(new ByteArrayInputStream(chunk(i), 0, chunkLength(i)));
      }
      InputStream head = parts.size() == 1 ? parts.get(0)
          : new SequenceInputStream(java.util.Collections.enumeration(parts));
      if (spillFile == null) {
        return head;
      }
      FileChannel ch = FileChannel.open(spillFile, StandardOpenOption.READ);
      InputStream tail = Channels.newInputStream(ch);
      long limit = spilledLength;
      return new SequenceInputStream(head, new java.io.FilterInputStream(tail) {
        long left = limit;

        @Override
        public int read() throws IOException {
          if (left <= 0) {
            return -1;
          }
          int b = super.read();
          if (b >= 0) {
            left--;
          }
          return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          if (left <= 0) {
            return -1;
          }
          int n = super.read(b, off, (int) Math.min(len, left));
          if (n > 0) {
            left -= n;
          }
          return n;
        }
      });
    }
  }

  /**
   * Moves the in-memory part to the spill file, freeing heap (used by the flow store's memory
   * budget). Nothing captured is lost. Returns the heap bytes freed (0 if nothing moved or the
   * disk refused; the body is then unchanged).
   */
  public long spillToDisk() {
    synchronized (lock) {
      if (memoryLength == 0) {
        return 0;
      }
      Path file = null;
      FileChannel ch = null;
      try {
        Files.createDirectories(policy.spillDir());
        file = Files.createTempFile(policy.spillDir(), "loupe-body-", ".bin");
        file.toFile().deleteOnExit();
        ch = FileChannel.open(file, StandardOpenOption.WRITE);
        for (int i = 0; i < chunkCount(); i++) {
          ByteBuffer head = ByteBuffer.wrap(chunk(i), 0, chunkLength(i));
          while (head.hasRemaining()) {
            ch.write(head);
          }
        }
        if (spillFile != null) {
          // transferTo may move fewer bytes than asked (and at most 2 GiB per call): loop.
          try (FileChannel old = FileChannel.open(spillFile, StandardOpenOption.READ)) {
            long done = 0;
            while (done < spilledLength) {
              long n = old.transferTo(done, spilledLength - done, ch);
              if (n <= 0) {
                throw new IOException("spill file " + spillFile + " is shorter than " + spilledLength);
              }
              done += n;
            }
          }
        }
        Path oldFile = spillFile;
        closeSpillChannel();
        if (oldFile != null) {
          Files.deleteIfExists(oldFile);
        }
        long freed = allocated;
        spilledLength += memoryLength;
        memoryLength = 0;
        clearChunks();
        allocated = 0;
        lastUsed = 0;
        spillFile = file;
        if (complete) {
          ch.close();
        } else {
          spillChannel = ch;
        }
        return freed;
      } catch (IOException e) {
        if (ch != null) {
          try {
            ch.close();
          } catch (IOException ignored) {
            // the file is deleted next
          }
        }
        if (file != null) {
          try {
            Files.deleteIfExists(file);
          } catch (IOException ignored) {
            // deleteOnExit remains
          }
        }
        return 0;
      }
    }
  }

  /**
   * Forgets the captured bytes for good (a rolling store dropping the flow): the spill file is
   * deleted and full-size chunks go back to the {@link ChunkPool} for other bodies. The body reads
   * as empty afterwards; streams opened before must not be read after this.
   */
  public void discard() {
    synchronized (lock) {
      release();
      for (int i = 0; i < chunkCount(); i++) {
        ChunkPool.SHARED.give(chunk(i));
      }
      clearChunks();
      allocated = 0;
      lastUsed = 0;
      memoryLength = 0;
    }
  }

  /** Deletes the spill file, if any. The body reads as its in-memory part afterwards. */
  public void release() {
    synchronized (lock) {
      closeSpillChannel();
      if (spillFile != null) {
        try {
          Files.deleteIfExists(spillFile);
        } catch (IOException ignored) {
          // best effort; deleteOnExit remains
        }
        spillFile = null;
        spilledLength = 0;
      }
    }
  }
}
