package dev.loupe.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loupe diff} in-process: exit 0 for captures that do not differ, 1 for ones that do (Markdown
 * and JSON, to stdout or a file, or nothing with -q), 2 for bad files and options with a line naming
 * the file; sessions and HAR files in any mix; the matching options.
 */
@Timeout(120)
class DiffCommandTest {
  @TempDir Path dir;

  /** A session with GET {@code paths[i]} answered {@code statuses[i]}, body "b-" + path without query. */
  private Path session(String name, String[] paths, int[] statuses) throws Exception {
    Path file = dir.resolve(name);
    try (Session s = Session.open(file, dir)) {
      RecordingStore store = new RecordingStore();
      s.record(store, p -> { });
      for (int i = 0; i < paths.length; i++) {
        RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), CapturePolicy.defaults());
        f.timings().requestStart(System.nanoTime());
        f.request(new RequestHead("GET", "http", "h.test", 80, paths[i], "HTTP/1.1", Headers.of("Accept", "*/*")));
        store.add(f);
        f.response(new ResponseHead(statuses[i], "", "HTTP/1.1", Headers.of("Content-Type", "text/plain",
            "Date", "Mon, 02 Mar 2026 10:00:0" + i + " GMT")));
        f.responseBody().append(ByteBuffer.wrap(("b-" + paths[i].replaceFirst("\\?.*", "")).getBytes(StandardCharsets.UTF_8)));
        f.timings().responseEnd(System.nanoTime());
        f.complete();
        store.completed(f);
      }
      s.flush();
    }
    return file;
  }

  @Test
  void sameCapturesExitZeroAndDifferentOnesExitOne() throws Exception {
    Path a = session("a.loupe", new String[] {"/x", "/y?t=1", "/gone"}, new int[] {200, 200, 200});
    Path same = session("same.loupe", new String[] {"/x", "/y?t=1", "/gone"}, new int[] {200, 200, 200});
    Path b = session("b.loupe", new String[] {"/x", "/y?t=2", "/new"}, new int[] {500, 200, 200});

    CliRun none = CliRun.of("diff", a.toString(), same.toString());
    assertThat(none.code()).as(none.err()).isZero();
    assertThat(none.out()).contains("No differences.", "| Unchanged | 3 |");
    assertThat(none.err()).isEmpty();

    CliRun md = CliRun.of("diff", a.toString(), b.toString());
    assertThat(md.code()).as(md.err()).isEqualTo(1);
    assertThat(md.out()).startsWith("# Session diff").contains("| Changed | 1 |", "| Removed (only in A) | 2 |",
        "| Added (only in B) | 2 |", "- status: `200` → `500`", "| #3 | GET | http://h.test/gone | 200 |");

    CliRun json = CliRun.of("diff", "--json", "--ignore-query", a.toString(), b.toString());
    assertThat(json.code()).isEqualTo(1);
    JsonNode root = new ObjectMapper().readTree(json.out());
    assertThat(root.path("options").path("ignoreQuery").asBoolean()).isTrue();
    assertThat(root.path("summary").path("changed").asInt()).isEqualTo(1);
    assertThat(root.path("summary").path("unchanged").asInt()).as("/y matched without its query").isEqualTo(1);
    assertThat(root.path("summary").path("removed").asInt()).isEqualTo(1);
    // lines come in key order: /gone (removed), /new (added), /x (changed)
    assertThat(root.path("entries").findValuesAsText("kind")).containsExactly("removed", "added", "changed");
    assertThat(root.path("entries").get(2).path("changes").get(0).path("after").asText()).isEqualTo("500");

    CliRun quiet = CliRun.of("diff", "-q", a.toString(), b.toString());
    assertThat(quiet.code()).isEqualTo(1);
    assertThat(quiet.out()).isEmpty();

    Path report = dir.resolve("report.json");
    CliRun toFile = CliRun.of("diff", "--json", "-o", report.toString(), a.toString(), b.toString());
    assertThat(toFile.code()).as(toFile.err()).isEqualTo(1);
    assertThat(toFile.out()).isEmpty();
    assertThat(new ObjectMapper().readTree(report.toFile()).path("summary").path("differs").asBoolean()).isTrue();
    try (var left = Files.list(dir)) {
      assertThat(left.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".writing"));
    }
  }

  @Test
  void headersLeftOutByDefaultCanBeComparedAndOthersLeftOut() throws Exception {
    Path a = session("a.loupe", new String[] {"/x"}, new int[] {200});
    Path b = session("b.loupe", new String[] {"/x", "/x"}, new int[] {200, 200});
    // the Date headers differ (second 0 and 1 for the second flow); the second /x is added
    CliRun plain = CliRun.of("diff", "--json", a.toString(), b.toString());
    JsonNode root = new ObjectMapper().readTree(plain.out());
    assertThat(root.path("summary").path("unchanged").asInt()).isEqualTo(1);
    assertThat(root.path("entries").get(0).path("occurrence").asInt()).isEqualTo(2);
    Path c = session("c.loupe", new String[] {"/z", "/x"}, new int[] {200, 200});
    CliRun all = CliRun.of("diff", "--json", "--all-headers", a.toString(), c.toString());
    JsonNode changed = new ObjectMapper().readTree(all.out()).path("entries").get(0);
    assertThat(changed.path("kind").asText()).isEqualTo("changed");
    assertThat(changed.path("changes").get(0).path("name").asText()).isEqualTo("date");
    CliRun ignored = CliRun.of("diff", "--all-headers", "--ignore-header", "Date,X-Other", a.toString(), c.toString());
    assertThat(ignored.out()).contains("| Changed | 0 |", "Headers not compared: date, x-other");
  }

  @Test
  void aSessionAndAHarCompareAndHarProblemsAreListed() throws Exception {
    Path a = session("a.loupe", new String[] {"/x", "/y"}, new int[] {200, 404});
    Path har = dir.resolve("a.har");
    try (Session s = Session.openReadOnly(a, dir)) {
      s.exportHar(har, Filter.ALL);
    }
    CliRun same = CliRun.of("diff", a.toString(), har.toString());
    assertThat(same.code()).as(same.out() + same.err()).isZero();
    // an entry without a URL is skipped and named on stderr; the rest is compared
    String text = Files.readString(har);
    Path broken = Files.writeString(dir.resolve("broken.har"), text.replaceFirst("\"url\"\\s*:\\s*\"[^\"]*/y\"", "\"url\": 7"));
    CliRun partial = CliRun.of("diff", "--json", a.toString(), broken.toString());
    assertThat(partial.code()).isEqualTo(1);
    assertThat(partial.err()).contains("loupe: diff: " + broken + ": entry 1, request.url");
    assertThat(new ObjectMapper().readTree(partial.out()).path("summary").path("removed").asInt()).isEqualTo(1);
  }

  @Test
  void troubleExitsTwoNamingTheFile() throws Exception {
    Path a = session("a.loupe", new String[] {"/x"}, new int[] {200});
    Path missing = dir.resolve("missing.loupe");
    CliRun m = CliRun.of("diff", a.toString(), missing.toString());
    assertThat(m.code()).isEqualTo(2);
    assertThat(m.err()).isEqualTo("loupe: diff: " + missing + ": no such file\n");
    assertThat(m.out()).isEmpty();

    Path text = Files.writeString(dir.resolve("notes.txt"), "just text");
    CliRun t = CliRun.of("diff", text.toString(), a.toString());
    assertThat(t.code()).isEqualTo(2);
    assertThat(t.err()).contains(text + " is neither a Loupe session nor a HAR file");

    Path newer = session("newer.loupe", new String[] {"/x"}, new int[] {200});
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + newer); Statement s = c.createStatement()) {
      s.execute("PRAGMA user_version = 42");
    }
    byte[] before = Files.readAllBytes(newer);
    CliRun n = CliRun.of("diff", a.toString(), newer.toString());
    assertThat(n.code()).isEqualTo(2);
    assertThat(n.err()).contains(newer.toString(), "newer Loupe");
    assertThat(Files.readAllBytes(newer)).isEqualTo(before);

    Path notHar = Files.writeString(dir.resolve("x.har"), "[1, 2]");
    CliRun h = CliRun.of("diff", a.toString(), notHar.toString());
    assertThat(h.code()).isEqualTo(2);
    assertThat(h.err()).contains(notHar.toString(), "not a HAR");

    assertThat(CliRun.of("diff", a.toString()).code()).as("B missing").isEqualTo(2);
    assertThat(CliRun.of("diff", "--timing-threshold", "-5", a.toString(), a.toString()).code()).isEqualTo(2);
    CliRun both = CliRun.of("diff", "-q", "-o", dir.resolve("r.md").toString(), a.toString(), a.toString());
    assertThat(both.code()).isEqualTo(2);
    assertThat(both.err()).contains("-q and -o");
  }

  @Test
  void timingAloneCountsPastTheThreshold() throws Exception {
    Path a = session("a.loupe", new String[] {"/x"}, new int[] {200});
    // the flows took well under a second each; a threshold of an hour finds nothing, of a nanosecond everything
    Path b = session("b.loupe", new String[] {"/x"}, new int[] {200});
    assertThat(CliRun.of("diff", "--timing-threshold", "3600000", a.toString(), b.toString()).code()).isZero();
    CliRun tiny = CliRun.of("diff", "--timing-threshold", "0.000001", a.toString(), b.toString());
    assertThat(tiny.code()).as("the two flows' times are not exactly equal").isEqualTo(1);
    assertThat(tiny.out()).contains("- time: ");
  }

  @Test
  void helpListsDiff() {
    CliRun help = CliRun.of("--help");
    assertThat(help.out()).contains("diff", "convert");
    CliRun diffHelp = CliRun.of("diff", "--help");
    assertThat(diffHelp.code()).isZero();
    assertThat(diffHelp.out()).contains("--ignore-query", "--by-path", "--json", "Exit status: 0 no differences");
  }
}
