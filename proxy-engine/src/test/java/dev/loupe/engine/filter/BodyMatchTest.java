package dev.loupe.engine.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code ~b}: content codings, the 1 MiB window, spilled bodies, bytes versus characters. */
@Timeout(30)
class BodyMatchTest {
  private static final String JSON = "{\"user\":\"ada\",\"token\":\"Secret-42\"}";

  @TempDir Path spillDir;

  private static Flow response(byte[] body, String... headers) {
    return FlowBuilder.get().response(200, headers).responseBody(body).complete();
  }

  private static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    }
    return out.toByteArray();
  }

  private static byte[] deflate(byte[] data, boolean zlib) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, !zlib);
    try (DeflaterOutputStream d = new DeflaterOutputStream(out, deflater)) {
      d.write(data);
    } finally {
      deflater.end();
    }
    return out.toByteArray();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void gzipAndDeflateBodiesAreDecodedFirst() throws IOException {
    Filter secret = Filter.parse("~bs secret-42");
    assertThat(secret.test(response(gzip(utf8(JSON)), "Content-Encoding", "gzip"))).isTrue();
    assertThat(secret.test(response(gzip(utf8(JSON)), "Content-Encoding", "X-GZIP"))).isTrue();
    assertThat(secret.test(response(deflate(utf8(JSON), true), "Content-Encoding", "deflate"))).isTrue();
    assertThat(secret.test(response(deflate(utf8(JSON), false), "Content-Encoding", "deflate")))
        .as("raw deflate, as some servers send").isTrue();
    assertThat(secret.test(response(gzip(utf8(JSON))))).as("no Content-Encoding: bytes as captured").isFalse();
  }

  @Test
  void requestBodiesAreDecodedToo() throws IOException {
    Flow upload = FlowBuilder.empty()
        .request("POST", "https", "a.example", 443, "/", "Content-Encoding", "gzip")
        .requestBody(gzip(utf8(JSON)))
        .build();
    assertThat(Filter.parse("~bq '\"user\":\"ada\"'").test(upload)).isTrue();
  }

  @Test
  void brokenOrUnknownCodingsFallBackToTheCapturedBytes() throws IOException {
    assertThat(Filter.parse("~b secret").test(response(utf8(JSON), "Content-Encoding", "gzip")))
        .as("not actually gzip").isTrue();
    assertThat(Filter.parse("~b secret").test(response(utf8(JSON), "Content-Encoding", "br")))
        .as("br cannot be undone with the JDK: matched as captured").isTrue();
    byte[] cut = gzip(utf8(JSON + " ".repeat(5000) + "tail-marker"));
    cut = Arrays.copyOf(cut, cut.length - 20);
    assertThat(Filter.parse("~b secret").test(response(cut, "Content-Encoding", "gzip")))
        .as("a body cut short keeps what decoded").isTrue();
  }

  @Test
  void onlyTheFirstMebibyteIsSearched() {
    byte[] body = new byte[BodyText.LIMIT + 100];
    Arrays.fill(body, (byte) 'x');
    System.arraycopy(utf8("early"), 0, body, 10, 5);
    System.arraycopy(utf8("late"), 0, body, BodyText.LIMIT + 10, 4);
    Flow big = response(body);
    assertThat(Filter.parse("~b early").test(big)).isTrue();
    assertThat(Filter.parse("~b late").test(big)).isFalse();
    assertThat(Filter.BODY_MATCH_LIMIT).isEqualTo(1 << 20);
  }

  @Test
  void spilledBodiesAreReadFromDisk() {
    RecordedFlow spilled = FlowBuilder.empty(new CapturePolicy(8, true, spillDir))
        .request("GET", "https", "a.example", 443, "/")
        .response(200)
        .responseBody(JSON)
        .complete();
    assertThat(spilled.responseBody().spilled()).isTrue();
    assertThat(Filter.parse("~bs secret-42").test(spilled)).isTrue();
    spilled.responseBody().release();
  }

  @Test
  void bodiesAreMatchedAsBytes() {
    Flow utf8 = response(utf8("naïve façade"));
    assertThat(Filter.parse("~b façade").test(utf8)).isTrue();
    assertThat(Filter.parse("~b FAÇADE").test(utf8)).as("case folds for ASCII letters only").isFalse();
    assertThat(Filter.parse("~b FAçADE").test(utf8)).isTrue();
    assertThat(Filter.parse("~b na..ve").test(utf8)).as("ï is two bytes").isTrue();
    Flow binary = response(new byte[] {0, (byte) 0xff, 'A', '\n', 'B'});
    assertThat(Filter.parse("~b a.b").test(binary)).as("DOTALL").isTrue();
    assertThat(Filter.parse("~b \\xffa").test(binary)).isTrue();
  }

  @Test
  void emptyBodiesNeverMatch() {
    assertThat(Filter.parse("~b ''").test(response(new byte[0]))).isFalse();
    assertThat(Filter.parse("~b ''").test(response(new byte[] {1}))).isTrue();
  }
}
