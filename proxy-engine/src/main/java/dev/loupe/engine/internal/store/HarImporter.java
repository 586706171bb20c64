package dev.loupe.engine.internal.store;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.internal.record.RecordedBody;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a HAR 1.2 file entry by entry (streaming: one entry's tree in memory at a time) and writes
 * each as a flow marked imported ({@code source} 1). What one entry becomes is {@link HarEntries}'
 * job; this class walks the file, numbers the flows and commits in batches.
 *
 * <h3>Broken files</h3>
 * A file that is not JSON, or has no {@code log.entries}, is refused before anything is written.
 * JSON that breaks off in the middle keeps the entries before the break and reports the rest. An
 * entry without a usable request method and URL is skipped and listed; a field that cannot be read
 * is ignored and listed; the entry is imported without it.
 *
 * <p>Runs on the session's writer thread.
 */
final class HarImporter {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonFactory JSON = MAPPER.getFactory();
  private static final int BATCH = 500;

  private final SessionDb db;
  private final FlowWriter writer;
  private final FlowReader reader;

  HarImporter(SessionDb db, FlowWriter writer, FlowReader reader) {
    this.db = db;
    this.writer = writer;
    this.reader = reader;
  }

  /** A file that is not a HAR at all; nothing was imported. */
  static final class NotHarException extends IOException {
    NotHarException(Path file, String why) {
      super(file + " is not a HAR file: " + why);
    }
  }

  ImportReport importFile(Path har, FlowStore live) throws IOException, SQLException {
    List<ImportReport.Problem> problems = new ArrayList<>();
    String creator = "";
    int entries = 0;
    int imported = 0;
    long[] nextId = {FlowWriter.maxId(db.writer()) + 1};
    Connection c = db.writer();
    try (InputStream in = Files.newInputStream(har); JsonParser p = JSON.createParser(in)) {
      if (!seekLog(p, har)) {
        throw new NotHarException(har, "no \"log\" object at the top level");
      }
      boolean sawEntries = false;
      c.setAutoCommit(false);
      try {
        while (next(p, har, -1) == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          JsonToken value = next(p, har, -1);
          if (field.equals("creator") && value == JsonToken.START_OBJECT) {
            JsonNode node = MAPPER.readTree(p);
            creator = (node.path("name").asText("") + " " + node.path("version").asText("")).trim();
          } else if (field.equals("entries") && value == JsonToken.START_ARRAY) {
            sawEntries = true;
            while (true) {
              JsonToken t;
              String broken = null;
              try {
                t = p.nextToken();
              } catch (JsonParseException e) {
                t = null;
                broken = e.getOriginalMessage() + " (line " + e.getLocation().getLineNr() + ")";
              }
              if (t == null) { // what came before stays imported
                problems.add(new ImportReport.Problem(entries, "", broken == null
                    ? "the file ends here, inside log.entries" : "the file breaks off here: " + broken, true));
                c.commit();
                return new ImportReport(creator, entries, imported, problems);
              }
              if (t == JsonToken.END_ARRAY) {
                break;
              }
              if (t != JsonToken.START_OBJECT) {
                problems.add(new ImportReport.Problem(entries, "", "not an object", true));
                p.skipChildren();
                entries++;
                continue;
              }
              JsonNode entry;
              try {
                entry = MAPPER.readTree(p);
              } catch (JsonParseException e) {
                problems.add(new ImportReport.Problem(entries, "", "the file breaks off inside this entry: "
                    + e.getOriginalMessage() + " (line " + e.getLocation().getLineNr() + ")", true));
                entries++;
                c.commit();
                return new ImportReport(creator, entries, imported, problems);
              }
              FlowBuilder b = HarEntries.read(entry, entries, problems);
              entries++;
              if (b == null) {
                continue;
              }
              b.id = live != null ? RecordingStore.of(live).nextId() : nextId[0]++;
              write(b);
              if (++imported % BATCH == 0) {
                c.commit();
              }
            }
          } else {
            p.skipChildren();
          }
        }
        if (!sawEntries) {
          c.rollback();
          throw new NotHarException(har, "no \"log.entries\" array");
        }
        c.commit();
      } catch (SQLException | IOException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException ignored) {
          // already rolled back by SQLite
        }
        writer.rolledBack();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    } catch (JsonParseException e) {
      throw new NotHarException(har, "invalid JSON at line " + e.getLocation().getLineNr() + ": "
          + e.getOriginalMessage());
    }
    return new ImportReport(creator, entries, imported, problems);
  }

  private void write(FlowBuilder b) throws SQLException, IOException {
    RecordedFlow f = b.build(reader.spillDir());
    writer.row(f, 1);
    writer.bodies(f);
    writer.messages(f, 0);
    for (RecordedBody body : new RecordedBody[] {f.requestBody(), f.responseBody(), f.originalRequestBody(), f.originalResponseBody()}) {
      if (body != null) {
        body.release();
      }
    }
  }

  /** Moves to the fields of the top-level {@code log} object; false when there is none. */
  private static boolean seekLog(JsonParser p, Path har) throws IOException {
    if (next(p, har, -1) != JsonToken.START_OBJECT) {
      throw new NotHarException(har, "it does not start with a JSON object");
    }
    while (next(p, har, -1) == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = next(p, har, -1);
      if (name.equals("log") && value == JsonToken.START_OBJECT) {
        return true;
      }
      p.skipChildren();
    }
    return false;
  }

  private static JsonToken next(JsonParser p, Path har, int entry) throws IOException {
    JsonToken t = p.nextToken();
    if (t == null) {
      throw new NotHarException(har, "it ends early" + (entry >= 0 ? " (after entry " + (entry - 1) + ")" : ""));
    }
    return t;
  }
}
