package dev.loupe.engine.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/** {@link Body#of}: the read-only complete body that drafts, edits and the composer make. */
class BodyTest {
  @Test
  void ofMakesACompleteBodyOfACopy() throws IOException {
    byte[] data = {1, 2, 3, 4, 5};
    Body body = Body.of(data);
    data[0] = 42; // the caller's array is not the body's
    assertThat(body.isComplete()).isTrue();
    assertThat(body.truncated()).isFalse();
    assertThat(body.spilled()).isFalse();
    assertThat(body.size()).isEqualTo(5);
    assertThat(body.capturedSize()).isEqualTo(5);
    assertThat(body.bytes()).containsExactly(1, 2, 3, 4, 5);
    body.bytes()[1] = 42; // nor is the array it hands out
    try (InputStream in = body.openStream()) {
      assertThat(in.readAllBytes()).containsExactly(1, 2, 3, 4, 5);
    }
    assertThat(Body.of(new byte[0]).size()).isZero();
  }
}
