package dev.loupe.app;

import dev.loupe.engine.api.session.DiffInput;
import dev.loupe.engine.api.session.DiffJson;
import dev.loupe.engine.api.session.DiffMarkdown;
import dev.loupe.engine.api.session.DiffSink;
import dev.loupe.engine.api.session.DiffSummary;
import dev.loupe.engine.api.session.SessionDiff;
import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.api.session.model.SessionException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code loupe diff A B}: compares two captures (sessions or HAR files, in any mix) and prints which
 * flows were added, removed or changed, as Markdown or ({@code --json}) JSON. Flows are matched by
 * method, URL and order; see {@link SessionDiff}.
 *
 * <p>Exit status, as diff(1): 0 nothing differs, 1 something does, 2 trouble (a file missing,
 * unreadable, not a session or HAR, from a newer Loupe; a bad option), with a line on stderr naming
 * the file and the problem.
 */
@Command(name = "diff", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Compare two captures: Loupe sessions (.loupe) or HAR files (.har), in any mix.",
        "Flows are matched by method + URL + order and listed as added (only in B), removed (only in A) or changed",
        "(status, failure, request/response headers, request/response body SHA-256 with gzip/deflate undone;",
        "the time difference is shown). Headers that change by nature (Date, Age, Expires, request and trace ids)",
        "are not compared unless --all-headers.",
        "Exit status: 0 no differences, 1 differences, 2 trouble (a bad file or option)."},
    footer = {"", "Examples:", "  loupe diff before.loupe after.loupe",
        "  loupe diff --json --ignore-query staging.har prod.har > diff.json",
        "  loupe diff --by-path -o report.md local.loupe deployed.har",
        "  loupe diff -q a.loupe b.loupe || echo 'the captures differ'"})
final class DiffCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "A", description = "The capture to compare from (.loupe or .har).")
  Path a;

  @Parameters(index = "1", paramLabel = "B", description = "The capture to compare with (.loupe or .har).")
  Path b;

  @Option(names = "--json", description = "Write the report as JSON (default: Markdown).")
  boolean json;

  @Option(names = "--ignore-query", description = "Match flows without the URL's query string.")
  boolean ignoreQuery;

  @Option(names = "--by-path", description = "Match flows by method and path only (scheme, host and port left out).")
  boolean byPath;

  @Option(names = "--ignore-header", paramLabel = "NAME", split = ",",
      description = "Do not compare this header (repeatable, or comma-separated).")
  List<String> ignoreHeaders = new ArrayList<>();

  @Option(names = "--all-headers", description = "Compare the headers left out by default too (Date, Age, Expires, ...).")
  boolean allHeaders;

  @Option(names = "--timing-threshold", paramLabel = "MS",
      description = "A total-time difference of at least MS milliseconds makes a flow changed (default: time alone never does).")
  Double timingThreshold;

  @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write the report to FILE (replaced atomically) instead of stdout.")
  Path output;

  @Option(names = {"-q", "--quiet"}, description = "Print no report; only the exit status tells.")
  boolean quiet;

  @Override
  public Integer call() {
    PrintStream err = System.err;
    if (quiet && output != null) {
      return trouble(err, "-q and -o do not go together (-q writes no report)");
    }
    if (timingThreshold != null && !(timingThreshold > 0)) {
      return trouble(err, "--timing-threshold: expected a positive number of milliseconds, got " + timingThreshold);
    }
    Set<String> ignored = new LinkedHashSet<>(allHeaders ? Set.of() : DiffOptions.VOLATILE_HEADERS);
    for (String h : ignoreHeaders) {
      if (h.isBlank()) {
        return trouble(err, "--ignore-header: empty header name");
      }
      ignored.add(h.trim());
    }
    DiffOptions options = new DiffOptions(ignoreQuery, byPath, ignored, timingThreshold == null ? 0 : timingThreshold);
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    try (DiffInput left = DiffInput.open(a, tmp); DiffInput right = DiffInput.open(b, tmp)) {
      warn(err, left);
      warn(err, right);
      DiffSummary summary;
      if (quiet) {
        summary = SessionDiff.run(left.session(), right.session(), options, d -> { }, () -> false);
      } else if (output == null) {
        summary = report(System.out, left, right, options, tmp);
      } else {
        summary = toFile(left, right, options, tmp);
      }
      return summary.differs() ? 1 : 0;
    } catch (SessionException e) {
      return trouble(err, e.getMessage());
    } catch (IOException | RuntimeException e) {
      return trouble(err, e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  private static int trouble(PrintStream err, String message) {
    err.println("loupe: diff: " + message);
    return 2;
  }

  private static void warn(PrintStream err, DiffInput in) {
    ImportReport r = in.report();
    if (r == null) {
      return;
    }
    for (ImportReport.Problem p : r.problems()) {
      err.println("loupe: diff: " + in.file() + ": " + p);
    }
  }

  private DiffSummary report(OutputStream out, DiffInput left, DiffInput right, DiffOptions options, Path tmp)
      throws IOException, SessionException {
    OutputStream buffered = new BufferedOutputStream(out, 64 * 1024);
    String nameA = a.toString();
    String nameB = b.toString();
    DiffSummary summary;
    if (json) {
      try (DiffJson sink = new DiffJson(buffered, nameA, nameB, options, true)) {
        summary = run(left, right, options, sink);
      }
    } else {
      Writer w = new OutputStreamWriter(buffered, StandardCharsets.UTF_8);
      try (DiffMarkdown sink = new DiffMarkdown(w, nameA, nameB, options, tmp)) {
        summary = run(left, right, options, sink);
      }
      w.flush();
    }
    buffered.flush();
    return summary;
  }

  private static DiffSummary run(DiffInput left, DiffInput right, DiffOptions options, DiffSink sink)
      throws IOException, SessionException {
    return SessionDiff.run(left.session(), right.session(), options, sink, () -> false);
  }

  /** Writes next to {@code output} and moves it into place: the file holds the old report or the whole new one. */
  private DiffSummary toFile(DiffInput left, DiffInput right, DiffOptions options, Path tmp)
      throws IOException, SessionException {
    Path target = output.toAbsolutePath();
    Path work = target.resolveSibling("." + target.getFileName() + ".writing");
    boolean done = false;
    try {
      DiffSummary summary;
      try (OutputStream out = Files.newOutputStream(work)) {
        summary = report(out, left, right, options, tmp);
      }
      try {
        Files.move(work, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(work, target, StandardCopyOption.REPLACE_EXISTING);
      }
      done = true;
      return summary;
    } finally {
      if (!done) {
        Files.deleteIfExists(work);
      }
    }
  }
}
