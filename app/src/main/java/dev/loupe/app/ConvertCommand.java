package dev.loupe.app;

import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.filter.FilterSyntaxException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code loupe convert IN OUT}: a session file ({@code .loupe}) to HAR and back, for scripts (as
 * {@code mitmdump -nr IN -w OUT} does). The kinds are told by the extensions ({@code .loupe},
 * {@code .har}); an input with another name is recognised by its first bytes. OUT is replaced
 * atomically: it holds the old file or the whole new one, never a part.
 *
 * <p>Exit status: 0 done (HAR entries that could not be read are listed on stderr), 1 a file could
 * not be read or written, 2 a bad command line.
 */
@Command(name = "convert", mixinStandardHelpOptions = true,
    description = {"Convert between a Loupe session (.loupe) and HAR (.har), either way.",
        "HAR entries that cannot be read are listed on stderr; the rest is converted."},
    footer = {"", "Examples:", "  loupe convert capture.har capture.loupe", "  loupe convert session.loupe session.har",
        "  loupe convert --filter '~d api.example.com' session.loupe api.har"})
final class ConvertCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "IN", description = "A .loupe session or a .har file.")
  Path in;

  @Parameters(index = "1", paramLabel = "OUT", description = "The .loupe or .har file to write (replaced if it exists).")
  Path out;

  @Option(names = "--filter", paramLabel = "EXPR",
      description = "Only the flows this filter matches (the filter language of the window), when writing HAR.")
  String filter;

  /** What a file holds. */
  enum Kind { LOUPE, HAR }

  @Override
  public Integer call() throws IOException {
    PrintStream err = System.err;
    if (!Files.isRegularFile(in)) {
      throw new LoupeCommand.UsageError("convert: no such file: " + in);
    }
    Kind from = kindOf(in);
    Kind to = kindByName(out);
    if (to == null) {
      throw new LoupeCommand.UsageError("convert: OUT must end in .loupe or .har: " + out);
    }
    if (in.toAbsolutePath().normalize().equals(out.toAbsolutePath().normalize())) {
      throw new LoupeCommand.UsageError("convert: IN and OUT are the same file");
    }
    Filter only = Filter.ALL;
    if (filter != null) {
      if (to != Kind.HAR) {
        throw new LoupeCommand.UsageError("convert: --filter is for writing HAR");
      }
      try {
        only = Filter.parse(filter);
      } catch (FilterSyntaxException e) {
        throw new LoupeCommand.UsageError("convert: --filter: " + e.getMessage());
      }
    }
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    try {
      if (from == Kind.LOUPE) {
        try (Session s = Session.openReadOnly(in, tmp)) {
          if (to == Kind.HAR) {
            long n = s.exportHar(out, only);
            System.out.println("Wrote " + n + " flows to " + out);
          } else {
            s.saveAs(out);
            System.out.println("Wrote " + s.count() + " flows to " + out);
          }
        }
      } else {
        Path work = out.toAbsolutePath().resolveSibling("." + out.getFileName() + ".converting");
        Files.deleteIfExists(work);
        boolean moved = false;
        try {
          ImportReport report;
          long flows;
          try (Session s = Session.open(work, tmp)) {
            report = s.importHar(in);
            flows = to == Kind.HAR ? s.exportHar(out, only) : s.count();
          }
          if (to == Kind.LOUPE) {
            move(work, out);
            moved = true;
          }
          printProblems(report, err);
          System.out.println("Wrote " + flows + " flows to " + out + " (" + report.imported() + " of "
              + report.entries() + " HAR entries imported)");
        } finally {
          if (!moved) {
            Files.deleteIfExists(work);
          }
        }
      }
      return 0;
    } catch (SessionException e) {
      err.println("loupe: " + e.getMessage());
      return 1;
    }
  }

  static void printProblems(ImportReport report, PrintStream err) {
    for (ImportReport.Problem p : report.problems()) {
      err.println("loupe: " + p);
    }
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** By extension, else by content ({@code SQLite format 3} or a JSON object). */
  static Kind kindOf(Path file) throws IOException {
    Kind k = kindByName(file);
    if (k != null) {
      return k;
    }
    try (InputStream s = Files.newInputStream(file)) {
      byte[] head = s.readNBytes(16);
      if (new String(head, StandardCharsets.ISO_8859_1).startsWith("SQLite format 3")) {
        return Kind.LOUPE;
      }
      for (byte b : head) {
        if (b == '{') {
          return Kind.HAR;
        }
        if (!Character.isWhitespace(b) && b != (byte) 0xEF && b != (byte) 0xBB && b != (byte) 0xBF) {
          break;
        }
      }
    }
    throw new LoupeCommand.UsageError("convert: " + file + " is neither a Loupe session nor a HAR file");
  }

  static Kind kindByName(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    return name.endsWith(".loupe") ? Kind.LOUPE : name.endsWith(".har") ? Kind.HAR : null;
  }
}
