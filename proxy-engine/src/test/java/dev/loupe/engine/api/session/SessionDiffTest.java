package dev.loupe.engine.api.session;

import static dev.loupe.engine.api.session.DiffFlows.get;
import static dev.loupe.engine.api.session.DiffFlows.gzip;
import static dev.loupe.engine.api.session.DiffFlows.request;
import static dev.loupe.engine.api.session.DiffFlows.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loupe.engine.api.session.model.BodyDigest;
import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.api.session.model.DigestSource;
import dev.loupe.engine.api.session.model.FlowDigest;
import dev.loupe.engine.flow.FlowError;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The diff on digests in memory: matching by method, URL and order (and with the query or the
 * authority left out), each kind of change, what is not a change, the order check, and both
 * reports.
 */
@Timeout(60)
class SessionDiffTest {
  @TempDir Path tmp;

  private static SessionDiff.Collector diff(List<DiffFlows.Spec> a, List<DiffFlows.Spec> b, DiffOptions o)
      throws Exception {
    SessionDiff.Collector c = new SessionDiff.Collector();
    SessionDiff.run(SessionDiff.sorted(a.stream().map(DiffFlows.Spec::digest).toList(), o),
        SessionDiff.sorted(b.stream().map(DiffFlows.Spec::digest).toList(), o), o, c, () -> false);
    return c;
  }

  private static SessionDiff.Collector diff(List<DiffFlows.Spec> a, List<DiffFlows.Spec> b) throws Exception {
    return diff(a, b, DiffOptions.DEFAULT);
  }

  @Test
  void flowsAreMatchedByMethodUrlAndOrder() throws Exception {
    SessionDiff.Collector c = diff(
        List.of(get("http://h.test/a").id(1), get("http://h.test/a").id(2).status(404), request("POST", "http://h.test/a").id(3),
            get("http://h.test/b").id(4)),
        List.of(request("POST", "http://h.test/a").id(10), get("http://h.test/a").id(11), get("http://h.test/c").id(12)));
    // GET /a #1 pairs with B's first GET /a (#11): the same; A's second GET /a (#2) has no partner
    assertThat(c.entries()).extracting(FlowDiff::kind, FlowDiff::key, FlowDiff::occurrence,
        d -> d.a() == null ? null : d.a().id(), d -> d.b() == null ? null : d.b().id()).containsExactly(
        tuple(FlowDiff.Kind.REMOVED, "GET http://h.test/a", 2, 2L, null),
        tuple(FlowDiff.Kind.REMOVED, "GET http://h.test/b", 1, 4L, null),
        tuple(FlowDiff.Kind.ADDED, "GET http://h.test/c", 1, null, 12L));
    assertThat(c.summary()).isEqualTo(new DiffSummary(4, 3, 1, 2, 0, 2));
    assertThat(c.summary().differs()).isTrue();
  }

  @Test
  void identicalSessionsDoNotDiffer() throws Exception {
    List<DiffFlows.Spec> same = List.of(get("https://h.test/x?1"), get("https://h.test/x?1"), request("PUT", "https://h.test/y"));
    SessionDiff.Collector c = diff(same, same);
    assertThat(c.entries()).isEmpty();
    assertThat(c.summary()).isEqualTo(new DiffSummary(3, 3, 0, 0, 0, 3));
    assertThat(c.summary().differs()).isFalse();
    assertThat(diff(List.of(), List.of()).summary().differs()).isFalse();
  }

  @Test
  void theQueryCanBeLeftOutOfTheMatch() throws Exception {
    List<DiffFlows.Spec> a = List.of(get("http://h.test/search?q=1&t=100"));
    List<DiffFlows.Spec> b = List.of(get("http://h.test/search?q=1&t=200"));
    assertThat(diff(a, b).entries()).extracting(FlowDiff::kind)
        .containsExactly(FlowDiff.Kind.REMOVED, FlowDiff.Kind.ADDED);
    SessionDiff.Collector c = diff(a, b, DiffOptions.DEFAULT.withIgnoreQuery(true));
    assertThat(c.entries()).isEmpty();
    assertThat(c.summary().unchanged()).isEqualTo(1);
  }

  @Test
  void matchingByPathLeavesOutSchemeAndAuthority() throws Exception {
    List<DiffFlows.Spec> a = List.of(get("http://staging.test/api/items?page=1"));
    List<DiffFlows.Spec> b = List.of(get("https://prod.test:8443/api/items?page=1").status(500));
    assertThat(diff(a, b).summary().changed()).isZero();
    SessionDiff.Collector byPath = diff(a, b, DiffOptions.DEFAULT.withByPath(true));
    assertThat(byPath.entries()).singleElement().satisfies(d -> {
      assertThat(d.kind()).isEqualTo(FlowDiff.Kind.CHANGED);
      assertThat(d.key()).isEqualTo("GET /api/items?page=1");
      assertThat(d.changes()).extracting(FlowDiff.Change::aspect, FlowDiff.Change::before, FlowDiff.Change::after)
          .containsExactly(tuple(FlowDiff.Aspect.STATUS, "200", "500"));
    });
    assertThat(DiffOptions.key("GET", "http://h.test?x=1", "p")).isEqualTo("GET /?x=1");
    assertThat(DiffOptions.key("GET", "http://h.test", "p")).isEqualTo("GET /");
    assertThat(DiffOptions.key("GET", "http://h.test/a/b?x=1", "qp")).isEqualTo("GET /a/b");
    assertThat(DiffOptions.key("CONNECT", "h.test:443", "qp")).isEqualTo("CONNECT h.test:443");
    assertThat(DiffOptions.key(null, null, "")).isEqualTo(" ");
    assertThat(DiffOptions.key("GET", "http://h.test/\uD800x", "")).isEqualTo("GET http://h.test/\uFFFDx");
  }

  @Test
  void eachKindOfChangeIsReportedInOrder() throws Exception {
    DiffFlows.Spec before = get("http://h.test/all").requestHeaders("Accept", "*/*", "X-Old", "1")
        .responseHeaders("Content-Type", "text/plain", "Cache-Control", "max-age=60").requestBody(utf8("q=1"))
        .responseBody("one").duration(10);
    DiffFlows.Spec after = get("http://h.test/all").status(503).requestHeaders("accept", "*/*", "X-New", "2")
        .responseHeaders("Content-Type", "text/plain", "Cache-Control", "no-store").requestBody(utf8("q=2"))
        .responseBody("two!").duration(250).error(FlowError.Kind.SERVER_RESET, "reset by peer");
    SessionDiff.Collector c = diff(List.of(before), List.of(after), DiffOptions.DEFAULT.withTimingThreshold(100));
    FlowDiff d = c.entries().get(0);
    assertThat(d.kind()).isEqualTo(FlowDiff.Kind.CHANGED);
    assertThat(d.changes()).extracting(FlowDiff.Change::aspect, FlowDiff.Change::name).containsExactly(
        tuple(FlowDiff.Aspect.STATUS, null),
        tuple(FlowDiff.Aspect.ERROR, null),
        tuple(FlowDiff.Aspect.REQUEST_HEADER, "x-old"),
        tuple(FlowDiff.Aspect.REQUEST_HEADER, "x-new"),
        tuple(FlowDiff.Aspect.REQUEST_BODY, null),
        tuple(FlowDiff.Aspect.RESPONSE_HEADER, "cache-control"),
        tuple(FlowDiff.Aspect.RESPONSE_BODY, null),
        tuple(FlowDiff.Aspect.TIMING, null));
    assertThat(d.changes().get(1).after()).isEqualTo("SERVER_RESET: reset by peer");
    assertThat(d.changes().get(2)).extracting(FlowDiff.Change::before, FlowDiff.Change::after).containsExactly("1", null);
    assertThat(d.changes().get(3)).extracting(FlowDiff.Change::before, FlowDiff.Change::after).containsExactly(null, "2");
    assertThat(d.changes().get(5)).extracting(FlowDiff.Change::before, FlowDiff.Change::after)
        .containsExactly("max-age=60", "no-store");
    assertThat(d.changes().get(6).before()).startsWith("sha256 ").endsWith("(3 bytes)");
    assertThat(d.changes().get(6).after()).endsWith("(4 bytes)");
    assertThat(d.changes().get(7)).extracting(FlowDiff.Change::before, FlowDiff.Change::after)
        .containsExactly("10.0 ms", "250.0 ms");
    assertThat(d.timingDeltaMs()).isEqualTo(240.0);
  }

  @Test
  void eachChangeAloneMakesAPairChanged() throws Exception {
    DiffFlows.Spec base = get("http://h.test/x");
    record Case(DiffFlows.Spec other, FlowDiff.Aspect aspect) {}
    for (Case k : List.of(
        new Case(get("http://h.test/x").status(201), FlowDiff.Aspect.STATUS),
        new Case(get("http://h.test/x").error(FlowError.Kind.CLIENT_ABORT, "gone"), FlowDiff.Aspect.ERROR),
        new Case(get("http://h.test/x").requestHeaders("Accept", "text/html"), FlowDiff.Aspect.REQUEST_HEADER),
        new Case(get("http://h.test/x").requestBody(utf8("x")), FlowDiff.Aspect.REQUEST_BODY),
        new Case(get("http://h.test/x").responseHeaders("Content-Type", "text/html"), FlowDiff.Aspect.RESPONSE_HEADER),
        new Case(get("http://h.test/x").responseBody("hellO"), FlowDiff.Aspect.RESPONSE_BODY))) {
      SessionDiff.Collector c = diff(List.of(base), List.of(k.other()));
      assertThat(c.entries()).as(k.aspect().label()).singleElement()
          .satisfies(d -> assertThat(d.changes()).extracting(FlowDiff.Change::aspect).containsExactly(k.aspect()));
    }
  }

  @Test
  void timingAloneIsAChangeOnlyPastTheThreshold() throws Exception {
    List<DiffFlows.Spec> a = List.of(get("http://h.test/slow").duration(10));
    List<DiffFlows.Spec> b = List.of(get("http://h.test/slow").duration(90));
    assertThat(diff(a, b).entries()).as("no threshold: reported, never a change").isEmpty();
    assertThat(diff(a, b, DiffOptions.DEFAULT.withTimingThreshold(100)).entries()).isEmpty();
    assertThat(diff(a, b, DiffOptions.DEFAULT.withTimingThreshold(80)).entries()).singleElement()
        .satisfies(d -> assertThat(d.has(FlowDiff.Aspect.TIMING)).isTrue());
  }

  @Test
  void volatileHeadersAreLeftOutUnlessAskedFor() throws Exception {
    List<DiffFlows.Spec> a = List.of(get("http://h.test/t")
        .responseHeaders("Date", "Mon, 02 Mar 2026 10:00:00 GMT", "X-Request-Id", "a1", "ETag", "\"v1\""));
    List<DiffFlows.Spec> b = List.of(get("http://h.test/t")
        .responseHeaders("date", "Mon, 02 Mar 2026 10:00:07 GMT", "X-Request-Id", "b2", "ETag", "\"v1\""));
    assertThat(diff(a, b).entries()).isEmpty();
    SessionDiff.Collector all = diff(a, b, DiffOptions.DEFAULT.withIgnoredHeaders(Set.of()));
    assertThat(all.entries().get(0).changes()).extracting(FlowDiff.Change::name).containsExactly("date", "x-request-id");
    SessionDiff.Collector more = diff(a, b, DiffOptions.DEFAULT.withIgnoredHeaders(Set.of("Date")));
    assertThat(more.entries().get(0).changes()).extracting(FlowDiff.Change::name).containsExactly("x-request-id");
  }

  @Test
  void headersCompareByNameWithoutCaseAndValuesAsAMultiset() throws Exception {
    List<DiffFlows.Spec> a = List.of(get("http://h.test/h").responseHeaders("Set-Cookie", "a=1", "Vary", "Accept",
        "Set-Cookie", "b=2"));
    List<DiffFlows.Spec> b = List.of(get("http://h.test/h").responseHeaders("vary", "Accept", "set-cookie", "b=2",
        "set-cookie", "a=1"));
    assertThat(diff(a, b).entries()).isEmpty();
    List<DiffFlows.Spec> c = List.of(get("http://h.test/h").responseHeaders("Set-Cookie", "a=1", "Vary", "Accept"));
    assertThat(diff(a, c).entries().get(0).changes()).containsExactly(
        new FlowDiff.Change(FlowDiff.Aspect.RESPONSE_HEADER, "set-cookie", "a=1, b=2", "a=1"));
  }

  @Test
  void bodiesCompareDecodedSoGzipAndPlainCopiesMatch() throws Exception {
    byte[] json = utf8("{\"items\":[1,2,3]}");
    DiffFlows.Spec gz = get("http://h.test/j").responseHeaders("Content-Encoding", "gzip").responseBody(gzip(json));
    DiffFlows.Spec plain = get("http://h.test/j").responseHeaders("Content-Encoding", "gzip").responseBody(gzip(json));
    assertThat(diff(List.of(gz), List.of(plain)).entries()).isEmpty();
    // the same bytes compressed differently (another level) are the same body
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    try (var z = new java.util.zip.GZIPOutputStream(out) {
      {
        def.setLevel(java.util.zip.Deflater.NO_COMPRESSION);
      }
    }) {
      z.write(json);
    }
    assertThat(out.toByteArray()).isNotEqualTo(gzip(json));
    DiffFlows.Spec stored = get("http://h.test/j").responseHeaders("Content-Encoding", "gzip").responseBody(out.toByteArray());
    assertThat(diff(List.of(gz), List.of(stored)).entries()).isEmpty();

    BodyDigest decoded = BodyDigest.of("gzip", 10, true, () -> new ByteArrayInputStream(gzip(json)));
    BodyDigest identity = BodyDigest.of(null, json.length, true, () -> new ByteArrayInputStream(json));
    assertThat(decoded.sha256()).isEqualTo(identity.sha256());
    assertThat(decoded.length()).isEqualTo(json.length);
    assertThat(BodyDigest.difference(decoded, identity)).isNull();
    // not gzip after all: hashed as stored, and still named gzip
    BodyDigest bogus = BodyDigest.of("gzip", 4, true, () -> new ByteArrayInputStream(utf8("junk")));
    assertThat(bogus.coding()).isEqualTo("gzip");
    assertThat(bogus.length()).isEqualTo(4);
  }

  @Test
  void bodiesThatCannotBeToldApartAreNotAChange() throws Exception {
    BodyDigest br = BodyDigest.of("br", 5, true, () -> new ByteArrayInputStream(utf8("brotl")));
    BodyDigest plain = BodyDigest.of(null, 5, true, () -> new ByteArrayInputStream(utf8("plain")));
    assertThat(br.coding()).isEqualTo("br");
    assertThat(BodyDigest.difference(br, plain)).as("different codings").isNull();
    BodyDigest cut = BodyDigest.of(null, 5000, false, null);
    BodyDigest cutSame = BodyDigest.of(null, 5000, false, null);
    BodyDigest cutLonger = BodyDigest.of(null, 6000, false, null);
    assertThat(BodyDigest.difference(cut, cutSame)).isNull();
    assertThat(BodyDigest.difference(cut, cutLonger)).isEqualTo("size 5000 → 6000 bytes (not kept whole)");
    // a body cut at its capture cap on both sides, with different sizes, is changed
    SessionDiff.Collector c = diff(List.of(get("http://h.test/big").keep(16).responseBody(new byte[100])),
        List.of(get("http://h.test/big").keep(16).responseBody(new byte[120])));
    assertThat(c.entries().get(0).changes()).singleElement().extracting(FlowDiff.Change::before, FlowDiff.Change::after)
        .containsExactly("100 bytes, not kept whole", "120 bytes, not kept whole");
  }

  @Test
  void keysOrderByCodePointAsTheStoreDoes() {
    String bmp = "GET http://h/\uFFFD";
    String astral = "GET http://h/\uD83D\uDE00";
    assertThat(bmp.compareTo(astral)).as("String order").isPositive();
    assertThat(SessionDiff.compareKeys(bmp, astral)).as("UTF-8 byte order").isNegative();
    assertThat(SessionDiff.compareKeys("a", "ab")).isNegative();
    assertThat(SessionDiff.compareKeys("ab", "a")).isPositive();
    assertThat(SessionDiff.compareKeys("ab", "ab")).isZero();
  }

  @Test
  void aSourceOutOfOrderIsRefused() {
    DigestSource unsorted = new DigestSource() {
      private final List<FlowDigest> list = List.of(get("http://h.test/b").id(1).digest(), get("http://h.test/a").id(2).digest());
      private int i;

      @Override
      public FlowDigest next() {
        return i < list.size() ? list.get(i++) : null;
      }

      @Override
      public long count() {
        return i;
      }

      @Override
      public void close() {
      }
    };
    assertThatThrownBy(() -> SessionDiff.run(unsorted, SessionDiff.sorted(List.of(), DiffOptions.DEFAULT),
        DiffOptions.DEFAULT, new SessionDiff.Collector(), () -> false))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("out of key order");
  }

  @Test
  void aStoppedDiffEnds() {
    List<FlowDigest> flows = List.of(get("http://h.test/1").digest(), get("http://h.test/2").digest());
    assertThatThrownBy(() -> SessionDiff.run(SessionDiff.sorted(flows, DiffOptions.DEFAULT),
        SessionDiff.sorted(List.of(), DiffOptions.DEFAULT), DiffOptions.DEFAULT, new SessionDiff.Collector(), () -> true))
        .isInstanceOf(java.util.concurrent.CancellationException.class);
  }

  /** One diff with every kind of line, through a report writer. */
  private void report(DiffSink sink) throws Exception {
    DiffOptions o = DiffOptions.DEFAULT.withIgnoreQuery(true);
    List<DiffFlows.Spec> a = List.of(get("http://h.test/a?x=1").id(1).duration(5), get("http://h.test/gone|pipe").id(2),
        get("http://h.test/same").id(3));
    List<DiffFlows.Spec> b = List.of(get("http://h.test/a?x=2").id(7).status(500).duration(7.5)
        .responseHeaders("Content-Type", "text/`odd`"), get("http://h.test/new").id(8), get("http://h.test/same").id(9));
    SessionDiff.run(SessionDiff.sorted(a.stream().map(DiffFlows.Spec::digest).toList(), o),
        SessionDiff.sorted(b.stream().map(DiffFlows.Spec::digest).toList(), o), o, sink, () -> false);
  }

  @Test
  void theJsonReportHoldsFilesOptionsEntriesAndCounts() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (DiffJson json = new DiffJson(out, "before.loupe", "after.har", DiffOptions.DEFAULT.withIgnoreQuery(true), true)) {
      report(json);
    }
    JsonNode root = new ObjectMapper().readTree(out.toByteArray());
    assertThat(root.path("loupeDiff").asInt()).isEqualTo(1);
    assertThat(root.path("a").path("file").asText()).isEqualTo("before.loupe");
    assertThat(root.path("b").path("file").asText()).isEqualTo("after.har");
    assertThat(root.path("options").path("ignoreQuery").asBoolean()).isTrue();
    assertThat(root.path("options").path("matching").asText()).isEqualTo("method + URL without query + order");
    assertThat(root.path("options").path("ignoredHeaders").toString()).contains("\"date\"");
    JsonNode entries = root.path("entries");
    assertThat(entries).hasSize(3);
    JsonNode changed = entries.get(0);
    assertThat(changed.path("kind").asText()).isEqualTo("changed");
    assertThat(changed.path("key").asText()).isEqualTo("GET http://h.test/a");
    assertThat(changed.path("a").path("id").asLong()).isEqualTo(1);
    assertThat(changed.path("b").path("status").asInt()).isEqualTo(500);
    assertThat(changed.path("timingDeltaMs").asDouble()).isEqualTo(2.5);
    assertThat(changed.path("changes").get(0).path("aspect").asText()).isEqualTo("status");
    assertThat(changed.path("changes").get(1).path("aspect").asText()).isEqualTo("responseHeader");
    assertThat(changed.path("changes").get(1).path("name").asText()).isEqualTo("content-type");
    assertThat(entries.get(1).path("kind").asText()).isEqualTo("removed");
    assertThat(entries.get(1).path("b").isNull()).isTrue();
    assertThat(entries.get(2).path("kind").asText()).isEqualTo("added");
    assertThat(root.path("summary").toString()).isEqualTo(
        "{\"flowsA\":3,\"flowsB\":3,\"added\":1,\"removed\":1,\"changed\":1,\"unchanged\":1,\"differs\":true}");
  }

  @Test
  void theMarkdownReportHasCountsThenSectionsAndLeavesNoSpool() throws Exception {
    StringWriter out = new StringWriter();
    Path spool = Files.createDirectories(tmp.resolve("spool"));
    try (DiffMarkdown md = new DiffMarkdown(out, "before.loupe", "after.har", DiffOptions.DEFAULT.withIgnoreQuery(true), spool)) {
      report(md);
    }
    String text = out.toString();
    assertThat(text).startsWith("# Session diff\n\n- A: `before.loupe` (3 flows)\n- B: `after.har` (3 flows)\n"
        + "- Matched by method + URL without query + order\n");
    assertThat(text).contains("| Changed | 1 |", "| Removed (only in A) | 1 |", "| Added (only in B) | 1 |",
        "| Unchanged | 1 |");
    assertThat(text).contains("## Changed (1)\n\n### 1. `GET http://h.test/a?x=1` — #1 → #7\n\n"
        + "- status: `200` → `500`\n"
        + "- response header `content-type`: `text/plain` → `` text/`odd` ``\n"
        + "- time: 5.0 ms → 7.5 ms (+2.5 ms)\n");
    assertThat(text).contains("## Removed (only in A) (1)\n\n| A | Method | URL | Status | Time |\n|---:|---|---|---:|---:|\n"
        + "| #2 | GET | http://h.test/gone\\|pipe | 200 | 10.0 ms |\n");
    assertThat(text).contains("## Added (only in B) (1)\n\n| B | Method | URL | Status | Time |");
    assertThat(text.indexOf("## Changed")).isLessThan(text.indexOf("## Removed")).isLessThan(text.indexOf("## Added"));
    try (Stream<Path> left = Files.list(spool)) {
      assertThat(left).isEmpty();
    }
    StringWriter none = new StringWriter();
    try (DiffMarkdown md = new DiffMarkdown(none, "a", "b", DiffOptions.DEFAULT, spool)) {
      SessionDiff.run(SessionDiff.sorted(List.of(), DiffOptions.DEFAULT), SessionDiff.sorted(List.of(), DiffOptions.DEFAULT),
          DiffOptions.DEFAULT, md, () -> false);
    }
    assertThat(none.toString()).contains("No differences.").doesNotContain("## ");
    assertThat(new String(none.toString().getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)).isNotEmpty();
  }
}
