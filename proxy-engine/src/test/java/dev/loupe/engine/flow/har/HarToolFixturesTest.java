package dev.loupe.engine.flow.har;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loupe.engine.api.intercept.ContentCoding;
import dev.loupe.engine.api.session.DiffSummary;
import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.SessionDiff;
import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * HAR files written by other tools (made on this machine by {@code scripts/har-fixtures/make.sh}
 * from one local origin; see {@code har/tools/README.md}): each imports whole (entries, bodies in
 * text and base64, a gzip body, a POST body, a redirect, a 404), exports again as HAR that passes
 * the HAR 1.2 schema, and that export imports back to the same flows (a session diff finds nothing).
 */
@Timeout(120)
class HarToolFixturesTest {
  @TempDir Path dir;

  private Path fixture(String name) throws Exception {
    Path p = dir.resolve(name);
    try (InputStream in = getClass().getResourceAsStream("/har/tools/" + name)) {
      assertThat(in).as(name).isNotNull();
      Files.copy(in, p);
    }
    return p;
  }

  @ParameterizedTest
  @CsvSource({
      "chromium-chrome-har.har, chrome-har 1.3.1, 9",
      "playwright-chromium.har, Playwright 1.65.1, 8",
      "mitmproxy-har_dump.har, mitmproxy har_dump 0.1, 8"})
  void importsWholeAndExportsValidHarThatImportsBackTheSame(String name, String creator, int entries) throws Exception {
    Path har = fixture(name);
    Path exported = dir.resolve("exported.har");
    List<Flow> flows = new ArrayList<>();
    try (Session s = Session.open(dir.resolve("imported.loupe"), dir)) {
      ImportReport report = s.importHar(har);
      assertThat(report.creator()).isEqualTo(creator);
      assertThat(report.entries()).isEqualTo(entries);
      assertThat(report.imported()).as(report.problems().toString()).isEqualTo(entries);
      assertThat(report.skipped()).isZero();
      assertThat(report.problems()).as("fields ignored").allSatisfy(
          p -> assertThat(p.field()).isEqualTo("request.postData.params"));
      s.flows(Filter.ALL, flows::add, () -> false);
      assertThat(s.exportHar(exported, Filter.ALL)).isEqualTo(entries);
    }
    assertThat(flows).hasSize(entries);

    Flow echo = only(flows, "POST", "/api/echo");
    assertThat(echo.response().status()).isEqualTo(201);
    if (creator.startsWith("chrome-har")) {
      // chrome-har keeps a JSON request body only as params (no text): seen, not kept, not made up
      assertThat(echo.requestBody().truncated()).isTrue();
      assertThat(echo.requestBody().size()).isEqualTo(25);
      assertThat(echo.requestBody().capturedSize()).isZero();
    } else {
      assertThat(new String(echo.requestBody().bytes(), StandardCharsets.UTF_8)).isEqualTo("{\"name\":\"café\",\"count\":2}");
    }
    assertThat(new String(echo.responseBody().bytes(), StandardCharsets.UTF_8)).startsWith("{\"received\":");
    Flow png = only(flows, "GET", "/img.png");
    assertThat(png.responseBody().bytes()).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
    Flow gzip = only(flows, "GET", "/gzip");
    byte[] text = ContentCoding.decodeOrKeep(gzip.response().headers(), gzip.responseBody().bytes());
    assertThat(new String(text, StandardCharsets.UTF_8)).isEqualTo("gzip-encoded text, ".repeat(40));
    assertThat(only(flows, "GET", "/redirect").response().status()).isEqualTo(302);
    assertThat(only(flows, "GET", "/missing").response().status()).isEqualTo(404);
    assertThat(only(flows, "GET", "/api/items?after=redirect").response().status()).isEqualTo(200);
    assertThat(flows).allSatisfy(f -> assertThat(f.timings().totalMs()).isGreaterThanOrEqualTo(0));

    assertThat(HarSchema.violations(new ObjectMapper().readTree(exported.toFile()))).isEmpty();

    try (Session a = Session.openReadOnly(dir.resolve("imported.loupe"), dir);
        Session b = Session.open(dir.resolve("again.loupe"), dir)) {
      assertThat(b.importHar(exported).imported()).isEqualTo(entries);
      SessionDiff.Collector c = new SessionDiff.Collector();
      DiffSummary sum = SessionDiff.run(a, b, DiffOptions.DEFAULT.withIgnoredHeaders(java.util.Set.of()), c, () -> false);
      assertThat(c.entries()).as("a HAR Loupe wrote reads back as the flows it came from").isEmpty();
      assertThat(sum.unchanged()).isEqualTo(entries);
    }
  }

  private static Flow only(List<Flow> flows, String method, String pathAndQuery) {
    List<Flow> found = flows.stream()
        .filter(f -> f.request().method().equals(method) && f.request().target().equals(pathAndQuery)).toList();
    assertThat(found).as(method + " " + pathAndQuery).hasSize(1);
    return found.get(0);
  }
}
