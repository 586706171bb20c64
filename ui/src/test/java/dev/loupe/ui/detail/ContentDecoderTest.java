package dev.loupe.ui.detail;

import static org.assertj.core.api.Assertions.assertThat;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.encoder.BrotliOutputStream;
import com.aayushatharva.brotli4j.encoder.Encoder;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdOutputStream;
import dev.loupe.engine.flow.ContentCodings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.loupe.ui.body.ContentDecoder;
import dev.loupe.ui.body.DecodedBody;

/** Real encoders' output (JDK zip, brotli4j, zstd-jni) decoded back; bombs and faults bounded. */
class ContentDecoderTest {
  static byte[] text;

  @BeforeAll
  static void data() {
    Brotli4jLoader.ensureAvailability(); // the encoders below need the natives loaded
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 2000; i++) {
      sb.append("{\"id\":").append(i).append(",\"name\":\"item ").append(i).append(" ☃\"}\n");
    }
    text = sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  interface Wrap {
    OutputStream wrap(OutputStream out) throws IOException;
  }

  static byte[] encode(byte[] data, Wrap wrap) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream o = wrap.wrap(out)) {
      o.write(data);
    }
    return out.toByteArray();
  }

  static byte[] gzip(byte[] data) throws IOException {
    return encode(data, GZIPOutputStream::new);
  }

  @Test
  void gzipAndXGzip() throws IOException {
    byte[] wire = gzip(text);
    DecodedBody d = ContentDecoder.decode(wire, "gzip", ContentDecoder.DEFAULT_LIMIT);
    assertThat(d.bytes()).isEqualTo(text);
    assertThat(d.decoded()).containsExactly("gzip");
    assertThat(d.limited()).isFalse();
    assertThat(d.error()).isNull();
    assertThat(ContentDecoder.decode(wire, "X-GZIP", 1 << 20).bytes()).isEqualTo(text);
  }

  @Test
  void deflateZlibWrappedAndRaw() throws IOException {
    byte[] zlib = encode(text, DeflaterOutputStream::new);
    assertThat(ContentDecoder.decode(zlib, "deflate", 1 << 20).bytes()).isEqualTo(text);
    Deflater raw = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
    byte[] rawWire = encode(text, out -> new DeflaterOutputStream(out, raw));
    raw.end();
    DecodedBody d = ContentDecoder.decode(rawWire, "deflate", 1 << 20);
    assertThat(d.bytes()).isEqualTo(text);
    assertThat(d.error()).isNull();
  }

  @Test
  void brotli() throws IOException {
    assertThat(Brotli4jLoader.isAvailable()).as("brotli4j natives load on this platform").isTrue();
    byte[] wire = Encoder.compress(text);
    assertThat(wire.length).isLessThan(text.length / 4);
    DecodedBody d = ContentDecoder.decode(wire, "br", 1 << 20);
    assertThat(d.bytes()).isEqualTo(text);
    assertThat(d.decoded()).containsExactly("br");
  }

  @Test
  void zstd() {
    byte[] wire = Zstd.compress(text);
    DecodedBody d = ContentDecoder.decode(wire, "zstd", 1 << 20);
    assertThat(d.bytes()).isEqualTo(text);
    assertThat(d.decoded()).containsExactly("zstd");
  }

  @Test
  void stackedCodingsAreUndoneInReverseOrder() throws IOException {
    // "gzip, br": gzip was applied first, then br.
    byte[] wire = Encoder.compress(gzip(text));
    DecodedBody d = ContentDecoder.decode(wire, "gzip, br", 1 << 20);
    assertThat(d.bytes()).isEqualTo(text);
    assertThat(d.decoded()).containsExactly("gzip", "br");
    assertThat(ContentCodings.parse(" identity , GZip,br ")).containsExactly("gzip", "br");
  }

  @Test
  void noCodingOrIdentityGivesTheWireBytes() {
    assertThat(ContentDecoder.decode(text, null, 1 << 20).bytes()).isEqualTo(text);
    DecodedBody d = ContentDecoder.decode(text, "identity", 1 << 20);
    assertThat(d.bytes()).isEqualTo(text);
    assertThat(d.decoded()).isEmpty();
  }

  @Test
  void unknownCodingShowsTheWireBytesAndSaysSo() {
    DecodedBody d = ContentDecoder.decode(text, "compress", 1 << 20);
    assertThat(d.bytes()).isEqualTo(text);
    assertThat(d.decoded()).isEmpty();
    assertThat(d.error()).contains("unsupported content-encoding: compress");
  }

  @Test
  void corruptDataFallsBackToTheWireBytes() {
    byte[] notGzip = "plainly not gzip".getBytes(StandardCharsets.US_ASCII);
    DecodedBody d = ContentDecoder.decode(notGzip, "gzip", 1 << 20);
    assertThat(d.bytes()).isEqualTo(notGzip);
    assertThat(d.decoded()).isEmpty();
    assertThat(d.error()).startsWith("could not decode gzip");
    DecodedBody z = ContentDecoder.decode(notGzip, "zstd", 1 << 20);
    assertThat(z.bytes()).isEqualTo(notGzip);
    assertThat(z.error()).contains("zstd");
  }

  @Test
  void aCutBodyKeepsWhatDecodedAndSaysItEndsEarly() throws IOException {
    byte[] random = new byte[200_000];
    new Random(7).nextBytes(random);
    byte[] big = new byte[400_000];
    System.arraycopy(random, 0, big, 0, random.length);
    System.arraycopy(random, 0, big, random.length, random.length);
    byte[] wire = gzip(big);
    byte[] cut = Arrays.copyOf(wire, wire.length / 2);
    DecodedBody d = ContentDecoder.decode(cut, "gzip", 1 << 20);
    assertThat(d.decoded()).containsExactly("gzip");
    assertThat(d.error()).contains("ends early");
    assertThat(d.bytes().length).isGreaterThan(0).isLessThan(big.length);
    assertThat(d.bytes()).isEqualTo(Arrays.copyOf(big, d.bytes().length));
  }

  /** 256 MiB of zeros squeezed into a few hundred KiB: decoding stops at the limit. */
  @Test
  void bombsStopAtTheLimit() throws IOException {
    long bomb = 256L << 20;
    byte[] zeros = new byte[1 << 20];
    byte[] gz = encode(new byte[0], out -> new GZIPOutputStream(out) {
      @Override
      public void close() throws IOException {
        for (long n = 0; n < bomb; n += zeros.length) {
          write(zeros);
        }
        super.close();
      }
    });
    assertThat(gz.length).isLessThan(1 << 20);
    long before = System.nanoTime();
    DecodedBody d = ContentDecoder.decode(gz, "gzip", ContentDecoder.DEFAULT_LIMIT);
    assertThat(d.limited()).isTrue();
    assertThat(d.bytes()).hasSize(ContentDecoder.DEFAULT_LIMIT);
    assertThat(System.nanoTime() - before).as("stops early, not after 256 MiB").isLessThan(5_000_000_000L);

    byte[] zst = encode(new byte[0], out -> new ZstdOutputStream(out) {
      @Override
      public void close() throws IOException {
        for (long n = 0; n < bomb; n += zeros.length) {
          write(zeros);
        }
        super.close();
      }
    });
    DecodedBody z = ContentDecoder.decode(zst, "zstd", 1 << 20);
    assertThat(z.limited()).isTrue();
    assertThat(z.bytes()).hasSize(1 << 20);

    byte[] br = encode(new byte[0], out -> new BrotliOutputStream(out) {
      @Override
      public void close() throws IOException {
        for (long n = 0; n < (64L << 20); n += zeros.length) {
          write(zeros);
        }
        super.close();
      }
    });
    DecodedBody b = ContentDecoder.decode(br, "br", 1 << 20);
    assertThat(b.limited()).isTrue();
    assertThat(b.bytes()).hasSize(1 << 20);
  }

  @Test
  void exactlyTheLimitIsNotLimited() throws IOException {
    byte[] data = new byte[4096];
    DecodedBody d = ContentDecoder.decode(gzip(data), "gzip", 4096);
    assertThat(d.limited()).isFalse();
    assertThat(d.bytes()).hasSize(4096);
    assertThat(ContentDecoder.decode(gzip(data), "gzip", 4095).limited()).isTrue();
  }

  @Test
  void codingNamesAreParsed() {
    assertThat(ContentCodings.parse(null)).isEmpty();
    assertThat(ContentDecoder.supported(List.of("gzip", "deflate", "br", "zstd"))).isTrue();
    assertThat(ContentDecoder.supported(List.of("gzip", "lzma"))).isFalse();
  }
}
