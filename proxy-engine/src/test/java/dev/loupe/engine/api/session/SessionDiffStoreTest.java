package dev.loupe.engine.api.session;

import static dev.loupe.engine.api.session.DiffFlows.get;
import static dev.loupe.engine.api.session.DiffFlows.gzip;
import static dev.loupe.engine.api.session.DiffFlows.request;
import static dev.loupe.engine.api.session.DiffFlows.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.api.session.model.DigestSource;
import dev.loupe.engine.api.session.model.FlowDigest;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.internal.record.RecordedBody;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The diff over session files: what the store streams (sorted by the key function in SQL, bodies
 * hashed from the file) is what the flows themselves give, for every matching mode; a session and
 * its own HAR export do not differ; bad inputs are refused naming the file, leaving nothing behind.
 */
@Timeout(180)
class SessionDiffStoreTest {
  @TempDir Path dir;

  /** Records {@code flows} into a new session file (ids as the store gives them) and closes it. */
  private Path record(String name, List<Flow> flows) throws Exception {
    Path file = dir.resolve(name);
    try (Session s = Session.open(file, dir)) {
      RecordingStore store = new RecordingStore();
      s.record(store, p -> { });
      for (Flow f : flows) {
        store.add(f);
        store.completed(f);
      }
      s.flush();
    }
    return file;
  }

  private List<Flow> flows(List<DiffFlows.Spec> specs) {
    List<Flow> out = new ArrayList<>();
    long id = 1;
    for (DiffFlows.Spec s : specs) {
      out.add(s.id(id++).flow(dir));
    }
    return out;
  }

  private static List<FlowDigest> all(DigestSource s) throws Exception {
    List<FlowDigest> out = new ArrayList<>();
    for (FlowDigest d; (d = s.next()) != null; ) {
      out.add(d);
    }
    return out;
  }

  private static List<FlowDigest> digests(List<Flow> flows) throws Exception {
    List<FlowDigest> out = new ArrayList<>();
    for (Flow f : flows) {
      out.add(FlowDigest.of(f));
    }
    return out;
  }

  @Test
  void theStoreStreamsTheDigestsTheFlowsGive() throws Exception {
    byte[] big = new byte[3 << 20];
    new Random(7).nextBytes(big);
    List<Flow> flows = flows(List.of(
        get("https://h.test/z").responseHeaders("Content-Encoding", "gzip", "Content-Type", "application/json")
            .responseBody(gzip(utf8("{\"a\":1}"))),
        request("POST", "https://h.test/a?x=1").requestHeaders("Content-Type", "text/plain").requestBody(utf8("body"))
            .status(201),
        get("https://h.test/big").responseBody(big),
        get("https://h.test/cut").keep(16).responseBody(new byte[500]),
        get("https://h.test/a?x=1").status(0).error(FlowError.Kind.CONNECT_REFUSED, "refused"),
        get("http://other.test:8080/a?x=1").responseHeaders("Content-Encoding", "br").responseBody(utf8("not brotli"))));
    RecordedFlow modified = RecordedFlow.of(flows.get(1));
    RecordedBody sent = new RecordedBody(CapturePolicy.defaults());
    sent.append(ByteBuffer.wrap(utf8("changed by a rule")));
    sent.complete();
    modified.requestModified(modified.request().withHeaders(Headers.of("X-Rule", "1")), sent);
    Path file = record("a.loupe", flows);
    for (DiffOptions o : List.of(DiffOptions.DEFAULT, DiffOptions.DEFAULT.withIgnoreQuery(true),
        DiffOptions.DEFAULT.withByPath(true), DiffOptions.DEFAULT.withByPath(true).withIgnoreQuery(true))) {
      try (Session s = Session.openReadOnly(file, dir); DigestSource stored = s.digests(o)) {
        assertThat(all(stored)).as(o.mode()).containsExactlyElementsOf(all(SessionDiff.sorted(digests(flows), o)));
        assertThat(stored.count()).isEqualTo(flows.size());
      }
    }
    try (Session s = Session.openReadOnly(file, dir); DigestSource stored = s.digests(DiffOptions.DEFAULT)) {
      List<FlowDigest> d = all(stored);
      FlowDigest gz = d.stream().filter(x -> x.url().endsWith("/z")).findFirst().orElseThrow();
      assertThat(gz.responseBody().coding()).as("gzip undone").isEmpty();
      assertThat(gz.responseBody().length()).isEqualTo(7);
      FlowDigest rule = d.stream().filter(x -> x.method().equals("POST")).findFirst().orElseThrow();
      assertThat(rule.requestHeaders().get("x-rule")).as("the request as sent").isEqualTo("1");
      assertThat(rule.requestBody().length()).isEqualTo(17);
      FlowDigest cut = d.stream().filter(x -> x.url().endsWith("/cut")).findFirst().orElseThrow();
      assertThat(cut.responseBody().whole()).isFalse();
      assertThat(cut.responseBody().size()).isEqualTo(500);
      assertThat(d.stream().filter(x -> x.url().endsWith("/big")).findFirst().orElseThrow().responseBody().length())
          .isEqualTo(big.length);
    }
  }

  @Test
  void closingTwiceIsHarmless() throws Exception {
    Session s = Session.open(dir.resolve("twice.loupe"), dir);
    s.record(new RecordingStore(), p -> { });
    s.close();
    s.close();
    try (Session again = Session.openReadOnly(dir.resolve("twice.loupe"), dir)) {
      assertThat(again.count()).isZero();
    }
  }

  @Test
  void aRecordingSessionStreamsWhatItHasWritten() throws Exception {
    try (Session s = Session.open(dir.resolve("live.loupe"), dir)) {
      RecordingStore store = new RecordingStore();
      s.record(store, p -> { });
      List<Flow> flows = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        RecordedFlow f = get("http://h.test/live/" + i).id(store.nextId()).responseBody(new byte[(2 << 20) + i]).flow(dir);
        store.add(f);
        store.completed(f);
        flows.add(f);
      }
      try (DigestSource d = s.digests(DiffOptions.DEFAULT)) { // flushed first; bodies in side files
        assertThat(all(d)).containsExactlyElementsOf(digests(flows));
      }
    }
  }

  /** A URL drawn from a small alphabet of paths, queries, hosts and characters (BMP and beyond). */
  private static String url(Random r) {
    String[] hosts = {"http://a.test", "https://a.test", "https://b.test:8443", "http://[::1]:8080"};
    String[] parts = {"a", "b", "\u00e9", "\uFFFD", "\uD83D\uDE00", "%20", "~", "A"};
    StringBuilder sb = new StringBuilder(hosts[r.nextInt(hosts.length)]).append('/');
    for (int i = r.nextInt(3); i >= 0; i--) {
      sb.append(parts[r.nextInt(parts.length)]);
    }
    if (r.nextBoolean()) {
      sb.append('?').append(parts[r.nextInt(parts.length)]).append('=').append(r.nextInt(3));
    }
    return sb.toString();
  }

  @Test
  void aDiffOfTwoSessionFilesIsTheDiffOfTheirFlows() throws Exception {
    Random r = new Random(42);
    List<DiffFlows.Spec> a = new ArrayList<>();
    List<DiffFlows.Spec> b = new ArrayList<>();
    for (int i = 0; i < 1500; i++) {
      String url = url(r);
      String method = r.nextInt(5) == 0 ? "POST" : "GET";
      int dice = r.nextInt(10);
      if (dice != 0) {
        a.add(request(method, url).responseBody("v" + (i % 7)));
      }
      if (dice != 1) {
        b.add(request(method, url).responseBody("v" + (i % 7)).status(dice == 2 ? 500 : 200));
      }
    }
    List<Flow> fa = flows(a);
    List<Flow> fb = flows(b);
    Path sa = record("a.loupe", fa);
    Path sb = record("b.loupe", fb);
    for (DiffOptions o : List.of(DiffOptions.DEFAULT, DiffOptions.DEFAULT.withIgnoreQuery(true),
        DiffOptions.DEFAULT.withByPath(true), DiffOptions.DEFAULT.withByPath(true).withIgnoreQuery(true))) {
      SessionDiff.Collector expected = new SessionDiff.Collector();
      SessionDiff.run(SessionDiff.sorted(digests(fa), o), SessionDiff.sorted(digests(fb), o), o, expected, () -> false);
      SessionDiff.Collector actual = new SessionDiff.Collector();
      try (DiffInput x = DiffInput.open(sa, dir); DiffInput y = DiffInput.open(sb, dir)) {
        SessionDiff.run(x.session(), y.session(), o, actual, () -> false);
      }
      assertThat(actual.entries()).as(o.mode()).containsExactlyElementsOf(expected.entries());
      assertThat(actual.summary()).isEqualTo(expected.summary());
      assertThat(actual.summary().changed()).as("some status changes are found").isPositive();
      assertThat(actual.summary().flowsA()).isEqualTo(fa.size());
    }
  }

  @Test
  void aSessionAndItsOwnHarExportDoNotDiffer() throws Exception {
    List<Flow> flows = flows(List.of(
        get("https://h.test/z").responseHeaders("Content-Encoding", "gzip", "Content-Type", "application/json")
            .responseBody(gzip(utf8("{\"a\":1}"))),
        request("POST", "https://h.test/form").requestHeaders("Content-Type", "application/x-www-form-urlencoded")
            .requestBody(utf8("a=1&b=2")).status(302).responseHeaders("Location", "/next").responseBody(new byte[0]),
        get("https://h.test/bin").responseHeaders("Content-Type", "application/octet-stream")
            .responseBody(new byte[] {0, 1, 2, (byte) 0xff}),
        get("https://h.test/z").status(404).responseBody("missing")));
    Path file = record("s.loupe", flows);
    Path har = dir.resolve("s.har");
    try (Session s = Session.openReadOnly(file, dir)) {
      assertThat(s.exportHar(har, Filter.ALL)).isEqualTo(4);
    }
    try (DiffInput a = DiffInput.open(file, dir); DiffInput b = DiffInput.open(har, dir)) {
      assertThat(b.report().imported()).isEqualTo(4);
      SessionDiff.Collector c = new SessionDiff.Collector();
      DiffSummary sum = SessionDiff.run(a.session(), b.session(), DiffOptions.DEFAULT, c, () -> false);
      assertThat(c.entries()).isEmpty();
      assertThat(sum).isEqualTo(new DiffSummary(4, 4, 0, 0, 0, 4));
    }
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left.map(p -> p.getFileName().toString())).as("the HAR's temporary session is gone")
          .noneMatch(n -> n.startsWith("loupe-diff-"));
    }
  }

  @Test
  void badInputsAreRefusedNamingTheFileAndLeaveNothingBehind() throws Exception {
    Path missing = dir.resolve("missing.loupe");
    assertThatThrownBy(() -> DiffInput.open(missing, dir)).isInstanceOf(SessionException.class)
        .hasMessageContaining(missing.toString()).hasMessageContaining("no such file");
    Path text = Files.writeString(dir.resolve("notes.txt"), "hello");
    assertThatThrownBy(() -> DiffInput.open(text, dir)).isInstanceOf(SessionException.class)
        .hasMessage(text + " is neither a Loupe session nor a HAR file; the file was not changed");
    Path notHar = Files.writeString(dir.resolve("x.har"), "{\"not\": \"a har\"}");
    assertThatThrownBy(() -> DiffInput.open(notHar, dir)).isInstanceOf(SessionException.class)
        .hasMessageContaining(notHar.toString()).hasMessageContaining("not a HAR");
    Path newer = record("newer.loupe", flows(List.of(get("http://h.test/"))));
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + newer); Statement s = c.createStatement()) {
      s.execute("PRAGMA user_version = 99");
    }
    assertThatThrownBy(() -> DiffInput.open(newer, dir)).isInstanceOf(SessionException.class)
        .hasMessageContaining(newer.toString()).hasMessageContaining("newer Loupe");
    Path truncated = dir.resolve("cut.loupe");
    Path whole = record("whole.loupe", flows(List.of(get("http://h.test/").responseBody(new byte[200_000]))));
    byte[] bytes = Files.readAllBytes(whole);
    Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    assertThatThrownBy(() -> DiffInput.open(truncated, dir)).isInstanceOf(SessionException.class)
        .hasMessageContaining(truncated.toString());
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("loupe-diff-"));
    }
  }

  @Test
  void theHeadOfAFlowWithoutARequestIsEmpty() throws Exception {
    RecordedFlow noRequest = new RecordedFlow(1, java.time.Instant.EPOCH, CapturePolicy.defaults());
    noRequest.fail(new FlowError(FlowError.Kind.CLIENT_TLS, "client rejected the certificate"));
    RecordedFlow tunnel = new RecordedFlow(2, java.time.Instant.EPOCH, CapturePolicy.defaults());
    tunnel.tier(dev.loupe.engine.flow.FlowTier.TUNNEL);
    tunnel.request(new RequestHead("CONNECT", "https", "h.test", 443, "h.test:443", "HTTP/1.1", Headers.EMPTY));
    tunnel.complete();
    Path file = record("odd.loupe", List.of(noRequest, tunnel));
    try (Session s = Session.openReadOnly(file, dir); DigestSource d = s.digests(DiffOptions.DEFAULT)) {
      List<FlowDigest> got = all(d);
      assertThat(got).extracting(FlowDigest::method, FlowDigest::url).containsExactly(
          org.assertj.core.groups.Tuple.tuple("", ""), org.assertj.core.groups.Tuple.tuple("CONNECT", "h.test"));
      assertThat(got).containsExactlyElementsOf(all(SessionDiff.sorted(digests(List.of(noRequest, tunnel)),
          DiffOptions.DEFAULT)));
    }
  }
}
