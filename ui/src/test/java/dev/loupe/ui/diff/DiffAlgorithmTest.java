package dev.loupe.ui.diff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Headers;
import dev.loupe.ui.diff.LineDiff.Kind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class DiffAlgorithmTest {
  @Test
  void equalTextsAreAllSame() {
    LineDiff.Result r = LineDiff.diff("a\nb\nc\n", "a\r\nb\r\nc");
    assertThat(r.rows()).extracting(LineDiff.Row::kind).containsExactly(Kind.SAME, Kind.SAME, Kind.SAME);
    assertThat(r.identical()).isTrue();
    assertThat(r.truncated()).isFalse();
  }

  @Test
  void aReplacedLineIsPairedAndInsertionsAndDeletionsStayOnTheirSide() {
    LineDiff.Result r = LineDiff.diff(List.of("a", "b", "c", "d", "e"), List.of("a", "B", "c", "e", "f"));
    assertThat(r.rows()).containsExactly(
        new LineDiff.Row(Kind.SAME, 1, "a", 1, "a"),
        new LineDiff.Row(Kind.CHANGED, 2, "b", 2, "B"),
        new LineDiff.Row(Kind.SAME, 3, "c", 3, "c"),
        new LineDiff.Row(Kind.REMOVED, 4, "d", 0, null),
        new LineDiff.Row(Kind.SAME, 5, "e", 4, "e"),
        new LineDiff.Row(Kind.ADDED, 0, null, 5, "f"));
    assertThat(r.changes()).isEqualTo(3);
  }

  @Test
  void emptySides() {
    assertThat(LineDiff.diff("", "").rows()).isEmpty();
    assertThat(LineDiff.diff("", "x\ny").rows()).extracting(LineDiff.Row::kind).containsExactly(Kind.ADDED, Kind.ADDED);
    assertThat(LineDiff.diff("x", "").rows()).extracting(LineDiff.Row::kind).containsExactly(Kind.REMOVED);
  }

  /** Myers finds a longest common subsequence: compare with the textbook O(NM) table on random inputs. */
  @Test
  void pairsAsManyLinesAsTheLongestCommonSubsequence() {
    Random rnd = new Random(7);
    for (int round = 0; round < 500; round++) {
      List<String> a = random(rnd, rnd.nextInt(40), 1 + rnd.nextInt(6));
      List<String> b = random(rnd, rnd.nextInt(40), 1 + rnd.nextInt(6));
      LineDiff.Result r = LineDiff.diff(a, b);
      assertThat(LineDiff.pairedLines(r)).as("%s vs %s", a, b).isEqualTo(lcs(a, b));
      // Every line of each side appears once, in order.
      assertThat(r.rows().stream().filter(x -> x.left() != null).map(LineDiff.Row::left).toList()).isEqualTo(a);
      assertThat(r.rows().stream().filter(x -> x.right() != null).map(LineDiff.Row::right).toList()).isEqualTo(b);
      r.rows().stream().filter(x -> x.kind() == Kind.SAME).forEach(x -> assertThat(x.left()).isEqualTo(x.right()));
    }
  }

  @Test
  void inputIsBoundedAndUnrelatedTextsStayFast() {
    List<String> a = new ArrayList<>();
    List<String> b = new ArrayList<>();
    for (int i = 0; i < 12_000; i++) {
      a.add("left " + i);
      b.add("right " + i);
    }
    long t0 = System.nanoTime();
    LineDiff.Result r = LineDiff.diff(a, b);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertThat(r.truncated()).isTrue();
    assertThat(r.rows()).hasSize(LineDiff.MAX_LINES);
    assertThat(r.rows()).allMatch(x -> x.kind() == Kind.CHANGED);
    assertThat(ms).as("ms for two unrelated 10k-line texts").isLessThan(5_000);

    // A big text with a few edits is aligned exactly.
    List<String> c = new ArrayList<>(a.subList(0, 9_000));
    List<String> d = new ArrayList<>(c);
    d.set(10, "edited");
    d.remove(5_000);
    d.add(8_000, "inserted");
    LineDiff.Result e = LineDiff.diff(c, d);
    assertThat(e.approximate()).isFalse();
    assertThat(e.changes()).isEqualTo(3);
  }

  @Test
  void headersMarkAddedRemovedAndChangedAndPairRepeatedFields() {
    Headers left = Headers.of("Host", "a", "Accept", "*/*", "Set-Cookie", "x=1", "Set-Cookie", "y=2", "X-Old", "1");
    Headers right = Headers.of("host", "a", "Accept", "text/html", "Set-Cookie", "x=1", "X-New", "2");
    assertThat(HeaderDiff.diff(left, right)).containsExactly(
        new HeaderDiff.Row("Host", "a", "a", Kind.SAME),
        new HeaderDiff.Row("Accept", "*/*", "text/html", Kind.CHANGED),
        new HeaderDiff.Row("Set-Cookie", "x=1", "x=1", Kind.SAME),
        new HeaderDiff.Row("Set-Cookie", "y=2", null, Kind.REMOVED),
        new HeaderDiff.Row("X-Old", "1", null, Kind.REMOVED),
        new HeaderDiff.Row("X-New", null, "2", Kind.ADDED));
    assertThat(HeaderDiff.diff(null, Headers.of("a", "b"))).extracting(HeaderDiff.Row::kind).containsExactly(Kind.ADDED);
  }

  @Test
  void bodiesAsTextJsonOrBinary() {
    Headers json = Headers.of("content-type", "application/json");
    BodyComparison j = BodyComparison.of(MessageSnapshot.of("a", json, utf8("{\"a\":1,\"b\":[1,2]}")),
        MessageSnapshot.of("b", json, utf8("{\"a\":2,\"b\":[1,2]}")));
    assertThat(j.text()).isTrue();
    assertThat(j.same()).isFalse();
    assertThat(j.lines().changes()).isEqualTo(1);
    assertThat(j.lines().rows()).filteredOn(r -> r.kind() == Kind.CHANGED).singleElement()
        .satisfies(r -> assertThat(r.left()).contains("\"a\": 1").doesNotContain("b"));
    assertThat(j.note()).contains("1 line differs").contains("JSON");

    BodyComparison same = BodyComparison.of(MessageSnapshot.of("a", Headers.EMPTY, utf8("x\ny")),
        MessageSnapshot.of("b", Headers.EMPTY, utf8("x\ny")));
    assertThat(same.same()).isTrue();
    assertThat(same.note()).startsWith("Identical");

    byte[] png = {(byte) 0x89, 'P', 'N', 'G', 0, 1, 2};
    BodyComparison bin = BodyComparison.of(MessageSnapshot.of("a", Headers.EMPTY, png),
        MessageSnapshot.of("b", Headers.EMPTY, png.clone()));
    assertThat(bin.text()).isFalse();
    assertThat(bin.same()).isTrue();
    assertThat(bin.leftSha256()).hasSize(64).isEqualTo(bin.rightSha256());
    assertThat(bin.note()).contains("binary").contains("SHA-256 equal");
    BodyComparison bin2 = BodyComparison.of(MessageSnapshot.of("a", Headers.EMPTY, png),
        MessageSnapshot.of("b", Headers.EMPTY, utf8("text")));
    assertThat(bin2.same()).isFalse();
    assertThat(bin2.note()).contains("left body is binary").contains("7 vs 4 bytes").contains("differs");
  }

  @Test
  void theChangedPartOfALineIsWhatRemainsAfterTheCommonPrefixAndSuffix() {
    assertThat(DiffView.changedSpan("\"name\": \"beta\"", "\"name\": \"gamma\"")).containsExactly(9, 12);
    assertThat(DiffView.changedSpan("abc", "abc")).containsExactly(3, 3);
    assertThat(DiffView.changedSpan("aXa", "aa")).containsExactly(1, 2);
    assertThat(DiffView.changedSpan("aa", "aXa")).containsExactly(1, 1);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> random(Random rnd, int n, int alphabet) {
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(Character.toString('a' + rnd.nextInt(alphabet)));
    }
    return out;
  }

  private static int lcs(List<String> a, List<String> b) {
    int[][] t = new int[a.size() + 1][b.size() + 1];
    for (int i = a.size() - 1; i >= 0; i--) {
      for (int j = b.size() - 1; j >= 0; j--) {
        t[i][j] = a.get(i).equals(b.get(j)) ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
      }
    }
    return t[0][0];
  }
}
