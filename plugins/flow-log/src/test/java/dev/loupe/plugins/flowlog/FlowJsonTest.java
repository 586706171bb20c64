package dev.loupe.plugins.flowlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** FlowJson's hand-written parts against what they replace: Instant.toString and a JSON parser. */
class FlowJsonTest {
  private static String instant(Instant at) {
    StringBuilder sb = new StringBuilder();
    FlowJson.instant(sb, at);
    return sb.toString();
  }

  @Test
  void instantsReadAsInstantToStringDoes() {
    long base = Instant.parse("2026-12-02T13:41:15Z").getEpochSecond();
    int[] nanos = {0, 1, 9, 10, 999, 1_000, 5_000, 123_000, 999_000, 1_000_000, 7_000_000, 120_000_000,
        999_000_000, 123_456_789, 100_000_001, 999_999_999, 10_000, 100};
    for (long second : new long[] {base, base + 1, 0, -1, 253_402_300_799L}) {
      for (int nano : nanos) {
        Instant at = Instant.ofEpochSecond(second, nano);
        assertThat(instant(at)).as("%s", at).isEqualTo('"' + at.toString() + '"');
      }
    }
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 10_000; i++) { // same second and the next, in any order: the cache follows
      Instant at = Instant.ofEpochSecond(base + random.nextInt(3), random.nextInt(1_000_000_000));
      assertThat(instant(at)).isEqualTo('"' + at.toString() + '"');
    }
    assertThat(instant(null)).isEqualTo("null");
  }

  @Test
  void stringsWithAndWithoutEscapesParseBackToThemselves() throws Exception {
    ObjectMapper json = new ObjectMapper();
    String[] values = {"", "plain/path?q=1", "\"quoted\"", "back\\slash", "tab\there", "line\nbreak\r",
        "ctl\u0001\u001f", "sep\u2028\u2029", "héllo wörld ✓", "end\"", "\"start", "mixed \\\" \n\u0000 ok"};
    for (String v : values) {
      StringBuilder sb = new StringBuilder();
      FlowJson.string(sb, v);
      assertThat(json.readTree(sb.toString()).textValue()).as(sb.toString()).isEqualTo(v);
      assertThat(sb.toString()).doesNotContain("\n", "\r", "\u2028");
    }
    StringBuilder sb = new StringBuilder();
    FlowJson.string(sb, null);
    assertThat(sb).hasToString("null");
  }
}
