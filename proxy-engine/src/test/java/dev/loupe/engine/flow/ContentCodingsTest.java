package dev.loupe.engine.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

class ContentCodingsTest {
  private static final byte[] TEXT;

  static {
    byte[] noise = new byte[50_000];
    new Random(7).nextBytes(noise);
    TEXT = (("hello, world ".repeat(4000)) + Arrays.toString(noise)).getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void parseNamesCodingsInTheOrderApplied() {
    assertThat(ContentCodings.parse(" identity , GZip,, X-GZIP , br ")).containsExactly("gzip", "gzip", "br");
    assertThat(ContentCodings.parse(null)).isEmpty();
    assertThat(ContentCodings.parse("identity")).isEmpty();
    assertThat(ContentCodings.gzipOrDeflate(List.of("gzip", "deflate"))).isTrue();
    assertThat(ContentCodings.gzipOrDeflate(List.of("gzip", "br"))).isFalse();
  }

  @Test
  void undoesGzipZlibDeflateRawDeflateAndChainsLastFirst() throws IOException {
    assertThat(decode(gzip(TEXT), "gzip")).isEqualTo(TEXT);
    assertThat(decode(deflate(TEXT, false), "deflate")).as("zlib-wrapped, as RFC 9110 says").isEqualTo(TEXT);
    assertThat(decode(deflate(TEXT, true), "deflate")).as("raw DEFLATE, as some servers send").isEqualTo(TEXT);
    assertThat(decode(deflate(gzip(TEXT), false), "gzip, deflate")).isEqualTo(TEXT);
    assertThat(decode(gzip(deflate(TEXT, true)), "x-gzip")).as("only the named coding is undone")
        .isEqualTo(deflate(TEXT, true));
  }

  @Test
  void aStreamCutShortGivesWhatDecodedThenEofException() throws IOException {
    for (boolean raw : new boolean[] {false, true}) {
      byte[] whole = deflate(TEXT, raw);
      byte[] cut = Arrays.copyOf(whole, whole.length / 2);
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      try (InputStream in = ContentCodings.decoder(new ByteArrayInputStream(cut), List.of("deflate"), 1024)) {
        assertThatThrownBy(() -> in.transferTo(got)).isInstanceOf(EOFException.class);
      }
      assertThat(got.size()).as("bytes decoded before the cut").isPositive();
      assertThat(Arrays.copyOf(TEXT, got.size())).isEqualTo(got.toByteArray());
    }
    byte[] gz = gzip(TEXT);
    assertThatThrownBy(() -> decode(Arrays.copyOf(gz, gz.length - 9), "gzip")).isInstanceOf(EOFException.class);
  }

  @Test
  void dataNotInItsCodingFailsAndClosesTheSource() throws IOException {
    boolean[] closed = {false};
    InputStream raw = new ByteArrayInputStream("not gzip at all".getBytes(StandardCharsets.US_ASCII)) {
      @Override
      public void close() {
        closed[0] = true;
      }
    };
    assertThatThrownBy(() -> ContentCodings.decoder(raw, List.of("gzip"), 1024)).isInstanceOf(IOException.class);
    assertThat(closed[0]).as("the source is closed when the decoder cannot start").isTrue();
    assertThatThrownBy(() -> ContentCodings.decoder(new ByteArrayInputStream(new byte[0]), List.of("br"), 1024))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("br");
  }

  private static byte[] decode(byte[] wire, String contentEncoding) throws IOException {
    try (InputStream in = ContentCodings.decoder(new ByteArrayInputStream(wire),
        ContentCodings.parse(contentEncoding), 4096)) {
      return in.readAllBytes();
    }
  }

  private static byte[] gzip(byte[] b) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream z = new GZIPOutputStream(out)) {
      z.write(b);
    }
    return out.toByteArray();
  }

  private static byte[] deflate(byte[] b, boolean raw) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Deflater d = new Deflater(Deflater.DEFAULT_COMPRESSION, raw);
    try (OutputStream z = new DeflaterOutputStream(out, d)) {
      z.write(b);
    } finally {
      d.end();
    }
    return out.toByteArray();
  }
}
