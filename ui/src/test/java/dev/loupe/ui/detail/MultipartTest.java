package dev.loupe.ui.detail;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.ui.detail.Multipart.Part;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import dev.loupe.ui.body.ContentType;

/**
 * Multipart bodies as browsers and {@code curl -F} send them (CRLF, quoted parameters, binary
 * files), and as sloppier clients do (bare LF, padding, preamble and epilogue, no header fields).
 */
class MultipartTest {
  static final String BOUNDARY = "----WebKitFormBoundary7MA4YWxkTrZu0gW";

  static byte[] binary() {
    byte[] b = new byte[3000];
    new Random(5).nextBytes(b);
    // the worst a file can hold: CRLF, dashes and a near-boundary
    byte[] trap = ("\r\n--" + BOUNDARY.substring(0, 20) + "\r\n").getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(trap, 0, b, 1000, trap.length);
    return b;
  }

  static byte[] browserBody(byte[] file) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String crlf = "\r\n";
    out.writeBytes(("--" + BOUNDARY + crlf
        + "Content-Disposition: form-data; name=\"title\"" + crlf + crlf
        + "Crème brûlée" + crlf
        + "--" + BOUNDARY + crlf
        + "Content-Disposition: form-data; name=\"upload\"; filename=\"my \\\"pic\\\".bin\"" + crlf
        + "Content-Type: application/octet-stream" + crlf + crlf).getBytes(StandardCharsets.UTF_8));
    out.writeBytes(file);
    out.writeBytes((crlf + "--" + BOUNDARY + crlf
        + "Content-Disposition: form-data; name=\"doc\"; filename=\"x.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt" + crlf
        + "Content-Type: text/plain" + crlf + crlf
        + crlf + crlf // content: one empty line (the last CRLF belongs to the delimiter)
        + "--" + BOUNDARY + "--" + crlf).getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  @Test
  void browserFormWithABinaryFile() {
    byte[] file = binary();
    Multipart.Parsed parsed = Multipart.parse(browserBody(file), BOUNDARY);
    assertThat(parsed.error()).isNull();
    assertThat(parsed.complete()).isTrue();
    assertThat(parsed.parts()).hasSize(3);
    Part title = parsed.parts().get(0);
    assertThat(title.name()).isEqualTo("title");
    assertThat(title.filename()).isNull();
    assertThat(new String(title.content(), StandardCharsets.UTF_8)).isEqualTo("Crème brûlée");
    Part upload = parsed.parts().get(1);
    assertThat(upload.name()).isEqualTo("upload");
    assertThat(upload.filename()).isEqualTo("my \"pic\".bin");
    assertThat(upload.contentType()).isEqualTo("application/octet-stream");
    assertThat(upload.content()).isEqualTo(file);
    Part doc = parsed.parts().get(2);
    assertThat(doc.filename()).as("filename* wins").isEqualTo("€ rates.txt");
    assertThat(doc.content()).as("content that is one empty line").isEqualTo("\r\n".getBytes(StandardCharsets.US_ASCII));
    assertThat(doc.headers().get("content-type")).isEqualTo("text/plain");
  }

  @Test
  void preambleEpiloguePaddingBareLfAndPartsWithoutHeaders() {
    String body = "This is the preamble.\n--xyz  \n\nno headers here\n--xyz\nContent-Type: text/plain\n"
        + " ; charset=utf-8\n\nfolded\n--xyz-- \nepilogue --xyz\n";
    Multipart.Parsed parsed = Multipart.parse(body.getBytes(StandardCharsets.US_ASCII), "xyz");
    assertThat(parsed.complete()).isTrue();
    assertThat(parsed.parts()).hasSize(2);
    assertThat(new String(parsed.parts().get(0).content(), StandardCharsets.US_ASCII)).isEqualTo("no headers here");
    assertThat(parsed.parts().get(0).headers().isEmpty()).isTrue();
    assertThat(parsed.parts().get(1).contentType()).isEqualTo("text/plain ; charset=utf-8");
    assertThat(new String(parsed.parts().get(1).content(), StandardCharsets.US_ASCII)).isEqualTo("folded");
  }

  @Test
  void aCutBodyGivesThePartsSoFar() {
    byte[] full = browserBody(binary());
    byte[] cut = Arrays.copyOf(full, full.length - 90); // inside the last part's header section
    Multipart.Parsed parsed = Multipart.parse(cut, BOUNDARY);
    assertThat(parsed.complete()).isFalse();
    assertThat(parsed.parts()).hasSize(3);
    assertThat(parsed.parts().get(2).name()).isEqualTo("doc");
    assertThat(parsed.parts().get(2).content()).isEmpty();
    byte[] cutInFile = Arrays.copyOf(full, 1500);
    Multipart.Parsed half = Multipart.parse(cutInFile, BOUNDARY);
    assertThat(half.parts()).hasSize(2);
    assertThat(half.parts().get(1).content()).isEqualTo(Arrays.copyOf(binary(), half.parts().get(1).content().length));
  }

  /** What Netty's HTTP POST encoder (a real multipart writer) produces, with a binary file part. */
  @Test
  void nettyEncoderOutput() throws Exception {
    byte[] bin = binary();
    io.netty.handler.codec.http.DefaultFullHttpRequest request = new io.netty.handler.codec.http.DefaultFullHttpRequest(
        io.netty.handler.codec.http.HttpVersion.HTTP_1_1, io.netty.handler.codec.http.HttpMethod.POST, "/upload");
    io.netty.handler.codec.http.multipart.HttpPostRequestEncoder encoder =
        new io.netty.handler.codec.http.multipart.HttpPostRequestEncoder(
            new io.netty.handler.codec.http.multipart.DefaultHttpDataFactory(false), request, true);
    encoder.addBodyAttribute("comment", "naïve \"quoted\" text");
    io.netty.handler.codec.http.multipart.MemoryFileUpload file = new io.netty.handler.codec.http.multipart.MemoryFileUpload(
        "upload", "data.bin", "application/octet-stream", null, null, bin.length);
    file.setContent(io.netty.buffer.Unpooled.wrappedBuffer(bin));
    encoder.addBodyHttpData(file);
    io.netty.handler.codec.http.HttpRequest head = encoder.finalizeRequest();
    String contentType = head.headers().get("content-type");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (encoder.isChunked()) {
      while (true) {
        io.netty.handler.codec.http.HttpContent chunk = encoder.readChunk(io.netty.buffer.ByteBufAllocator.DEFAULT);
        try {
          out.writeBytes(io.netty.buffer.ByteBufUtil.getBytes(chunk.content()));
        } finally {
          chunk.release();
        }
        if (chunk instanceof io.netty.handler.codec.http.LastHttpContent) {
          break;
        }
      }
    } else {
      io.netty.handler.codec.http.FullHttpRequest full = (io.netty.handler.codec.http.FullHttpRequest) head;
      out.writeBytes(io.netty.buffer.ByteBufUtil.getBytes(full.content()));
      full.release();
    }
    encoder.cleanFiles();

    Multipart.Parsed parsed = Multipart.parse(out.toByteArray(), ContentType.parse(contentType).boundary());
    assertThat(parsed.error()).isNull();
    assertThat(parsed.complete()).isTrue();
    assertThat(parsed.parts()).extracting(Part::name).containsExactly("comment", "upload");
    assertThat(new String(parsed.parts().get(0).content(), StandardCharsets.UTF_8)).isEqualTo("naïve \"quoted\" text");
    assertThat(parsed.parts().get(1).filename()).isEqualTo("data.bin");
    assertThat(parsed.parts().get(1).contentType()).startsWith("application/octet-stream");
    assertThat(parsed.parts().get(1).content()).isEqualTo(bin);
  }

  @Test
  void missingOrWrongBoundary() {
    byte[] body = browserBody(new byte[10]);
    assertThat(Multipart.parse(body, null).error()).contains("no boundary");
    assertThat(Multipart.parse(body, "nope").error()).contains("does not occur");
    assertThat(Multipart.parse(body, "nope").parts()).isEmpty();
  }

  @Test
  void boundaryFromTheContentTypeHeader() {
    String header = "multipart/form-data; boundary=\"" + BOUNDARY + "\"";
    assertThat(Multipart.parse(browserBody(new byte[1]), ContentType.parse(header).boundary()).parts()).hasSize(3);
  }
}
