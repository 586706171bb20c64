package dev.loupe.engine.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class HeadersTest {
  private final Headers headers = Headers.of(
      "Content-Type", "text/html", "Set-Cookie", "a=1", "X-Trace", "t", "set-cookie", "b=2");

  @Test
  void lookupsIgnoreCaseAndNamesKeepIt() {
    assertThat(headers.get("content-type")).isEqualTo("text/html");
    assertThat(headers.get("SET-COOKIE")).isEqualTo("a=1");
    assertThat(headers.getAll("Set-Cookie")).containsExactly("a=1", "b=2");
    assertThat(headers.contains("x-trace")).isTrue();
    assertThat(headers.get("missing")).isNull();
    assertThat(headers.getAll("missing")).isEmpty();
    assertThat(headers.fields()).extracting(Headers.Field::name)
        .containsExactly("Content-Type", "Set-Cookie", "X-Trace", "set-cookie");
  }

  @Test
  void isImmutableAndCopiesItsInput() {
    List<Headers.Field> source = new ArrayList<>(List.of(new Headers.Field("A", "1")));
    Headers h = Headers.of(source);
    source.add(new Headers.Field("B", "2"));
    assertThat(h.size()).isEqualTo(1);
    assertThatThrownBy(() -> h.fields().add(new Headers.Field("C", "3")))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void emptyIsTheSharedEmptyInstance() {
    assertThat(Headers.of(List.of())).isSameAs(Headers.EMPTY);
    assertThat(Headers.of()).isSameAs(Headers.EMPTY);
    assertThat(Headers.EMPTY.isEmpty()).isTrue();
    assertThat(Headers.EMPTY.wireSize()).isZero();
  }

  @Test
  void wireSizeCountsNameColonSpaceValueCrlf() {
    // "Content-Type: text/html\r\n" = 12 + 2 + 9 + 2
    assertThat(Headers.of("Content-Type", "text/html").wireSize()).isEqualTo(25);
    assertThat(headers.wireSize()).isEqualTo(25 + (10 + 2 + 3 + 2) + (7 + 2 + 1 + 2) + (10 + 2 + 3 + 2));
  }

  @Test
  void pairsMustBePairsAndFieldsNonNull() {
    assertThatThrownBy(() -> Headers.of("A")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Headers.Field(null, "v")).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> new Headers.Field("n", null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void equalityIsByFieldsInOrder() {
    assertThat(Headers.of("A", "1", "B", "2")).isEqualTo(Headers.of("A", "1", "B", "2"))
        .hasSameHashCodeAs(Headers.of("A", "1", "B", "2"))
        .isNotEqualTo(Headers.of("B", "2", "A", "1"));
    assertThat(Headers.normalise("Content-Type")).isEqualTo("content-type");
    assertThat(Headers.of("A", "1").toString()).isEqualTo("A: 1\n");
  }

  @Test
  void wrappedSequencesAreHandedOnAsTheyAreAndReadAsStringsOnlyWhenAsked() {
    StringBuilder name = new StringBuilder("Accept");
    CharSequence value = new StringBuilder("*/*");
    Headers h = Headers.wrap(new CharSequence[] {name, value, "x", "1", null, null}, 2);
    assertThat(h.size()).isEqualTo(2);
    assertThat(h.name(0)).isSameAs(name);
    assertThat(h.value(0)).isSameAs(value);
    assertThat(h.get("accept")).isEqualTo("*/*");
    assertThat(h.getAll("X")).containsExactly("1");
    assertThat(h.contains("y")).isFalse();
    assertThat(h.wireSize()).isEqualTo(Headers.of("Accept", "*/*", "x", "1").wireSize());
    assertThat(h).isEqualTo(Headers.of("Accept", "*/*", "x", "1")).hasSameHashCodeAs(Headers.of("Accept", "*/*", "x", "1"));
    assertThat(h.fields()).containsExactly(new Headers.Field("Accept", "*/*"), new Headers.Field("x", "1"));
    assertThat(h.with("x", "2").get("x")).isEqualTo("2");
    assertThat(h.without("accept")).isEqualTo(Headers.of("x", "1"));
    assertThat(Headers.of("A", "1").name(0)).isEqualTo("A");
    assertThat(Headers.wrap(new CharSequence[0], 0)).isSameAs(Headers.EMPTY);
    assertThatThrownBy(() -> Headers.wrap(new CharSequence[] {"a"}, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Headers.wrap(new CharSequence[] {"a", null}, 1)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> h.name(2)).isInstanceOf(IndexOutOfBoundsException.class);
  }
}
