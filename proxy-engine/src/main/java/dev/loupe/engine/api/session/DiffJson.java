package dev.loupe.engine.api.session;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.loupe.engine.api.session.model.DiffOptions;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A session diff as JSON, written as the diff runs (nothing is held): the files and options first,
 * then every line in {@code entries}, then the counts in {@code summary}.
 *
 * <pre>{@code
 * {"loupeDiff": 1,
 *  "a": {"file": "before.loupe"}, "b": {"file": "after.har"},
 *  "options": {"matching": "method + URL + order", "ignoreQuery": false, "byPath": false,
 *              "ignoredHeaders": ["age", "date", ...], "timingThresholdMs": 0},
 *  "entries": [
 *    {"kind": "changed", "key": "GET http://h/x", "occurrence": 1,
 *     "a": {"id": 3, "method": "GET", "url": "http://h/x", "status": 200, "durationMs": 4.2},
 *     "b": {"id": 7, ...}, "timingDeltaMs": 1.5,
 *     "changes": [{"aspect": "status", "name": null, "before": "200", "after": "500"}, ...]},
 *    {"kind": "removed", "key": ..., "a": {...}, "b": null, "changes": []}],
 *  "summary": {"flowsA": 10, "flowsB": 11, "added": 1, "removed": 0, "changed": 1, "unchanged": 9,
 *              "differs": true}}
 * }</pre>
 *
 * <p>{@code status} is null without a response, {@code durationMs} and {@code timingDeltaMs} null
 * when unknown. Aspects: {@code status, error, requestHeader, requestBody, responseHeader,
 * responseBody, webSocketCount, webSocketMessage, timing}; header names are lower case. WebSocket
 * changes are per direction: {@code {"aspect": "webSocketCount", "name": "server→client",
 * "before": "12", "after": "13"}}, {@code {"aspect": "webSocketMessage", "name": "client→server #3",
 * "before": "text, 12 bytes, sha256 0123456789ab", "after": null}} (null: no such message on that
 * side); at most 20 messages per direction are listed, then one {@code "client→server …"} line
 * counts the rest.
 */
public final class DiffJson implements DiffSink, AutoCloseable {
  /** The format's version, {@code loupeDiff}. */
  public static final int VERSION = 1;

  private final JsonGenerator json;

  /** Starts the document on {@code out} (left open on {@link #close}). */
  public DiffJson(OutputStream out, String a, String b, DiffOptions options, boolean pretty) throws IOException {
    json = new JsonFactory().createGenerator(out, JsonEncoding.UTF8);
    json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    if (pretty) {
      json.useDefaultPrettyPrinter();
    }
    json.writeStartObject();
    json.writeNumberField("loupeDiff", VERSION);
    json.writeObjectFieldStart("a");
    json.writeStringField("file", a);
    json.writeEndObject();
    json.writeObjectFieldStart("b");
    json.writeStringField("file", b);
    json.writeEndObject();
    json.writeObjectFieldStart("options");
    json.writeStringField("matching", options.describeMatching());
    json.writeBooleanField("ignoreQuery", options.ignoreQuery());
    json.writeBooleanField("byPath", options.byPath());
    json.writeArrayFieldStart("ignoredHeaders");
    for (String h : options.ignoredHeaders()) {
      json.writeString(h);
    }
    json.writeEndArray();
    json.writeNumberField("timingThresholdMs", Math.max(0, options.timingThresholdMs()));
    json.writeEndObject();
    json.writeArrayFieldStart("entries");
  }

  @Override
  public void entry(FlowDiff d) throws IOException {
    json.writeStartObject();
    json.writeStringField("kind", d.kind().label());
    json.writeStringField("key", d.key());
    json.writeNumberField("occurrence", d.occurrence());
    side("a", d.a());
    side("b", d.b());
    number("timingDeltaMs", d.timingDeltaMs());
    json.writeArrayFieldStart("changes");
    for (FlowDiff.Change c : d.changes()) {
      json.writeStartObject();
      json.writeStringField("aspect", c.aspect().label());
      json.writeStringField("name", c.name());
      json.writeStringField("before", c.before());
      json.writeStringField("after", c.after());
      json.writeEndObject();
    }
    json.writeEndArray();
    json.writeEndObject();
  }

  private void side(String field, FlowDiff.Side s) throws IOException {
    if (s == null) {
      json.writeNullField(field);
      return;
    }
    json.writeObjectFieldStart(field);
    json.writeNumberField("id", s.id());
    json.writeStringField("method", s.method());
    json.writeStringField("url", s.url());
    if (s.status() == 0) {
      json.writeNullField("status");
    } else {
      json.writeNumberField("status", s.status());
    }
    number("durationMs", s.durationMs() < 0 ? Double.NaN : s.durationMs());
    json.writeEndObject();
  }

  private void number(String field, double v) throws IOException {
    if (Double.isNaN(v)) {
      json.writeNullField(field);
    } else {
      json.writeNumberField(field, Math.round(v * 1000) / 1000.0);
    }
  }

  @Override
  public void end(DiffSummary s) throws IOException {
    json.writeEndArray();
    json.writeObjectFieldStart("summary");
    json.writeNumberField("flowsA", s.flowsA());
    json.writeNumberField("flowsB", s.flowsB());
    json.writeNumberField("added", s.added());
    json.writeNumberField("removed", s.removed());
    json.writeNumberField("changed", s.changed());
    json.writeNumberField("unchanged", s.unchanged());
    json.writeBooleanField("differs", s.differs());
    json.writeEndObject();
    json.writeEndObject();
    json.writeRaw('\n');
    json.flush();
  }

  @Override
  public void close() throws IOException {
    json.close();
  }
}
