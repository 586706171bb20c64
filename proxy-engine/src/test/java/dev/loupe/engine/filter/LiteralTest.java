package dev.loupe.engine.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The literal fast path finds exactly what the equivalent Pattern finds. */
@Timeout(30)
class LiteralTest {
  private static final String HAYSTACK_CHARS = "aAbBkKsS-\"é\u212a\u017f\u0130ıß\u00ff\u00c3\u00a9";
  private static final String NEEDLE_CHARS = "aAbBkKsS-\"";

  private static String random(Random rnd, String alphabet, int maxLength) {
    StringBuilder s = new StringBuilder();
    for (int n = rnd.nextInt(maxLength + 1); n > 0; n--) {
      s.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
    }
    return s.toString();
  }

  @Test
  void textSearchFoldsCaseLikeUnicodeCase() {
    Random rnd = new Random(11);
    for (int i = 0; i < 20_000; i++) {
      String needle = random(rnd, NEEDLE_CHARS, 3);
      String text = random(rnd, HAYSTACK_CHARS, 12);
      boolean expected = Pattern.compile(needle, Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE).matcher(text).find();
      assertThat(Literal.of(needle, true).inText(text)).as("'%s' in '%s'", needle, text).isEqualTo(expected);
    }
    assertThat(Literal.of("k", true).inText("\u212a")).as("the Kelvin sign folds to k").isTrue();
  }

  @Test
  void byteSearchFoldsAsciiLettersOnly() {
    Random rnd = new Random(12);
    for (int i = 0; i < 20_000; i++) {
      String needle = random(rnd, "aAbB-\"éÉ", 3);
      String bytewiseNeedle = new String(needle.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
      byte[] body = random(rnd, "aAbB-\"éÉ\u00ff", 12).getBytes(StandardCharsets.UTF_8);
      Latin1Text text = new Latin1Text().reset(body, body.length);
      boolean expected = Pattern.compile(bytewiseNeedle, Pattern.CASE_INSENSITIVE).matcher(text).find();
      assertThat(Literal.of(bytewiseNeedle, false).inBytes(body, body.length)).as("'%s' in '%s'", needle, text)
          .isEqualTo(expected);
    }
  }

  @Test
  void onlyPlainWordsAreLiterals() {
    assertThat(Literal.of("api", true)).isNotNull();
    assertThat(Literal.of("\"error\":", true)).isNotNull();
    for (String regex : new String[] {"a.b", "^a", "a$", "a|b", "a?", "a*", "a+", "(a)", "[a]", "a{2}", "\\d"}) {
      assertThat(Literal.of(regex, false)).as(regex).isNull();
    }
    assertThat(Literal.of("café", true)).as("non-ASCII folding is left to Pattern").isNull();
    assertThat(Literal.of("café", false)).isNotNull();
  }
}
