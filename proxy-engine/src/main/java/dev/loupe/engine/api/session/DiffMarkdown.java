package dev.loupe.engine.api.session;

import dev.loupe.engine.api.session.model.DiffOptions;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A session diff as Markdown: a title naming both files, how flows were matched, a table of counts,
 * then the changed flows (each with its changes as a list), the removed and the added flows (as
 * tables).
 *
 * <p>Sections follow the counts but lines arrive mixed, as the diff finds them: each section is
 * written to a temporary file in {@code spoolDir} as it grows and copied out at the {@link #end},
 * so a diff of millions of flows holds none of them in memory.
 */
public final class DiffMarkdown implements DiffSink, AutoCloseable {
  private final Writer out;
  private final String a;
  private final String b;
  private final DiffOptions options;
  private final Path[] spool = new Path[3];
  private final BufferedWriter[] sections = new BufferedWriter[3];
  private final long[] counts = new long[3];

  /** Writes to {@code out} (left open on {@link #close}) at the end; sections wait in {@code spoolDir}. */
  public DiffMarkdown(Writer out, String a, String b, DiffOptions options, Path spoolDir) throws IOException {
    this.out = out;
    this.a = a;
    this.b = b;
    this.options = options;
    try {
      for (int i = 0; i < 3; i++) {
        spool[i] = Files.createTempFile(spoolDir, "loupe-diff-", ".md");
        sections[i] = Files.newBufferedWriter(spool[i], StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      close();
      throw e;
    }
  }

  @Override
  public void entry(FlowDiff d) throws IOException {
    int i = d.kind().ordinal(); // ADDED, REMOVED, CHANGED
    BufferedWriter w = sections[i];
    long n = ++counts[i];
    if (d.kind() == FlowDiff.Kind.CHANGED) {
      w.write("### " + n + ". " + code(d.a().method() + " " + d.a().url()) + " — #" + d.a().id() + " → #"
          + d.b().id() + occurrence(d) + "\n\n");
      for (FlowDiff.Change c : d.changes()) {
        String what = switch (c.aspect()) {
          case STATUS -> "status";
          case ERROR -> "failure";
          case REQUEST_HEADER -> "request header " + code(c.name());
          case RESPONSE_HEADER -> "response header " + code(c.name());
          case REQUEST_BODY -> "request body";
          case RESPONSE_BODY -> "response body";
          case WEBSOCKET_COUNT -> "WebSocket messages " + c.name();
          case WEBSOCKET_MESSAGE -> "WebSocket message " + c.name();
          case TIMING -> "time";
        };
        w.write("- " + what + ": " + value(c.before()) + " → " + value(c.after()) + "\n");
      }
      double delta = d.timingDeltaMs();
      if (!Double.isNaN(delta) && !d.has(FlowDiff.Aspect.TIMING)) {
        w.write("- time: " + SessionDiff.ms(d.a().durationMs()) + " → " + SessionDiff.ms(d.b().durationMs()) + " ("
            + String.format(Locale.ROOT, "%+.1f ms", delta) + ")\n");
      }
      w.write("\n");
    } else {
      if (n == 1) {
        w.write("| " + (d.kind() == FlowDiff.Kind.ADDED ? "B" : "A") + " | Method | URL | Status | Time |\n"
            + "|---:|---|---|---:|---:|\n");
      }
      FlowDiff.Side s = d.either();
      w.write("| #" + s.id() + " | " + cell(s.method()) + " | " + cell(s.url()) + " | "
          + (s.status() == 0 ? "—" : s.status()) + " | " + (s.durationMs() < 0 ? "—" : SessionDiff.ms(s.durationMs()))
          + " |\n");
    }
  }

  private static String occurrence(FlowDiff d) {
    return d.occurrence() == 1 ? "" : " (occurrence " + d.occurrence() + ")";
  }

  @Override
  public void end(DiffSummary s) throws IOException {
    for (BufferedWriter w : sections) {
      w.close();
    }
    out.write("# Session diff\n\n");
    out.write("- A: " + code(a) + " (" + s.flowsA() + " flows)\n");
    out.write("- B: " + code(b) + " (" + s.flowsB() + " flows)\n");
    out.write("- Matched by " + options.describeMatching() + "\n");
    out.write("- Headers not compared: " + (options.ignoredHeaders().isEmpty() ? "none"
        : String.join(", ", options.ignoredHeaders())) + "\n");
    if (options.timingThresholdMs() > 0) {
      out.write("- A time difference of " + SessionDiff.ms(options.timingThresholdMs()) + " or more is a change\n");
    }
    out.write("\n| | Flows |\n|---|---:|\n");
    out.write("| Changed | " + s.changed() + " |\n");
    out.write("| Removed (only in A) | " + s.removed() + " |\n");
    out.write("| Added (only in B) | " + s.added() + " |\n");
    out.write("| Unchanged | " + s.unchanged() + " |\n\n");
    if (!s.differs()) {
      out.write("No differences.\n");
    }
    section("Changed", FlowDiff.Kind.CHANGED, s.changed());
    section("Removed (only in A)", FlowDiff.Kind.REMOVED, s.removed());
    section("Added (only in B)", FlowDiff.Kind.ADDED, s.added());
    out.flush();
    deleteSpool();
  }

  private void section(String title, FlowDiff.Kind kind, long n) throws IOException {
    if (n == 0) {
      return;
    }
    out.write("## " + title + " (" + n + ")\n\n");
    try (BufferedReader r = Files.newBufferedReader(spool[kind.ordinal()], StandardCharsets.UTF_8)) {
      r.transferTo(out);
    }
    out.write("\n");
  }

  /** {@code `text`}, with a longer fence when the text holds backticks; never across lines. */
  static String code(String text) {
    String t = text.replace('\n', ' ').replace('\r', ' ');
    if (t.indexOf('`') < 0) {
      return "`" + t + "`";
    }
    return "`` " + t + " ``";
  }

  private static String value(String v) {
    return v == null ? "(none)" : code(v);
  }

  /** A table cell: pipes escaped, on one line. */
  static String cell(String text) {
    return text.replace("\\", "\\\\").replace("|", "\\|").replace('\n', ' ').replace('\r', ' ');
  }

  private void deleteSpool() {
    for (int i = 0; i < 3; i++) {
      if (sections[i] != null) {
        try {
          sections[i].close();
        } catch (IOException ignored) {
          // deleted next
        }
      }
      if (spool[i] != null) {
        try {
          Files.deleteIfExists(spool[i]);
        } catch (IOException ignored) {
          // a temporary file
        }
      }
    }
  }

  /** Deletes the temporary files (after {@link #end}, or instead of it when the diff failed). */
  @Override
  public void close() {
    deleteSpool();
  }
}
