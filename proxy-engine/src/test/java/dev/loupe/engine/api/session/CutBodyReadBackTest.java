package dev.loupe.engine.api.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A body seen and not kept reads back not kept, whatever the flow's other body kept: with one
 * capture policy for both bodies, an unkept request body of 25 bytes next to a kept 58-byte response
 * came back as 25 kept zero bytes (found by importing chrome-har's HAR, which has a JSON request body
 * only as params).
 */
@Timeout(60)
class CutBodyReadBackTest {
  @TempDir Path dir;

  @Test
  void anUnkeptBodyStaysUnkeptNextToAKeptOne() throws Exception {
    String har = """
        {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
          "startedDateTime": "2026-03-01T10:00:00.000Z", "time": 5,
          "request": {"method": "POST", "url": "http://h.test/api", "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": "application/json"}], "queryString": [], "cookies": [],
            "headersSize": -1, "bodySize": 25,
            "postData": {"mimeType": "application/json", "params": [{"name": "a", "value": "1"}]}},
          "response": {"status": 201, "statusText": "", "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": "application/json"}], "cookies": [],
            "content": {"size": 58, "mimeType": "application/json", "text": "%s"},
            "redirectURL": "", "headersSize": -1, "bodySize": 58},
          "cache": {}, "timings": {"send": 1, "wait": 3, "receive": 1}}]}}
        """.formatted("x".repeat(58));
    Path file = Files.writeString(dir.resolve("t.har"), har);
    List<Flow> flows = new ArrayList<>();
    try (Session s = Session.open(dir.resolve("t.loupe"), dir)) {
      ImportReport r = s.importHar(file);
      assertThat(r.problems()).singleElement().satisfies(p -> {
        assertThat(p.field()).isEqualTo("request.postData.params");
        assertThat(p.skipped()).isFalse();
      });
      s.flows(Filter.ALL, flows::add, () -> false);
    }
    Flow f = flows.get(0);
    assertThat(f.requestBody().size()).isEqualTo(25);
    assertThat(f.requestBody().truncated()).isTrue();
    assertThat(f.requestBody().capturedSize()).isZero();
    assertThat(f.responseBody().truncated()).isFalse();
    assertThat(new String(f.responseBody().bytes(), StandardCharsets.UTF_8)).isEqualTo("x".repeat(58));
  }
}
