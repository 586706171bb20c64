package dev.loupe.engine.internal.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** ALTSVC frame payloads (RFC 7838 §4) as the server leg reads them, and the origin check. */
class AltSvcFramesTest {
  private static ByteBuf payload(String origin, String value) {
    byte[] o = origin.getBytes(StandardCharsets.US_ASCII);
    ByteBuf b = Unpooled.buffer();
    b.writeShort(o.length).writeBytes(o).writeBytes(value.getBytes(StandardCharsets.US_ASCII));
    return b;
  }

  @Test
  void parsesBothForms() {
    ByteBuf zero = payload("https://example.com", "h3=\":443\"; ma=60");
    ByteBuf onStream = payload("", "h3=\":8443\"");
    try {
      assertThat(AltSvcFrames.parse(0, zero)).isEqualTo(new AltSvcFrames.Frame("https://example.com", "h3=\":443\"; ma=60"));
      assertThat(zero.readerIndex()).as("read, not consumed").isZero();
      assertThat(AltSvcFrames.parse(3, onStream)).isEqualTo(new AltSvcFrames.Frame(null, "h3=\":8443\""));
    } finally {
      zero.release();
      onStream.release();
    }
  }

  @Test
  void malformedFramesAreIgnored() {
    ByteBuf[] bad = {
        payload("", "h3=\":443\""),                    // stream 0 without an origin
        Unpooled.wrappedBuffer(new byte[] {0}),         // shorter than the length field
        Unpooled.wrappedBuffer(new byte[] {0, 9, 'h'}), // origin longer than the frame
    };
    for (ByteBuf b : bad) {
      assertThat(AltSvcFrames.parse(0, b)).isNull();
      b.release();
    }
    ByteBuf named = payload("https://example.com", "h3=\":443\"");
    assertThat(AltSvcFrames.parse(1, named)).as("a stream's frame naming an origin").isNull();
    named.release();
  }

  @Test
  void sameOrigin() {
    assertThat(AltSvcFrames.sameOrigin("https://example.com", "example.com", 443)).isTrue();
    assertThat(AltSvcFrames.sameOrigin("https://EXAMPLE.com:8443", "example.com", 8443)).isTrue();
    assertThat(AltSvcFrames.sameOrigin("https://[::1]:8443", "::1", 8443)).isTrue();
    assertThat(AltSvcFrames.sameOrigin("https://example.com", "example.com", 8443)).isFalse();
    assertThat(AltSvcFrames.sameOrigin("http://example.com:443", "example.com", 443)).isFalse();
    assertThat(AltSvcFrames.sameOrigin("https://other.example", "example.com", 443)).isFalse();
    assertThat(AltSvcFrames.sameOrigin("not a uri", "example.com", 443)).isFalse();
  }
}
