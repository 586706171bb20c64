package dev.loupe.engine.api.session.model;

import java.util.List;

/**
 * What a HAR import did: how many entries became flows, and what could not be read, entry by entry.
 *
 * @param creator   the HAR's {@code log.creator} ("Chromium 131", "mitmproxy 11.0.0"), or empty
 * @param entries   entries in the file
 * @param imported  entries that became flows
 * @param problems  entries (or fields) that could not be read; an entry with a problem may still
 *                  have been imported without that field (see {@link Problem#skipped()})
 */
public record ImportReport(String creator, int entries, int imported, List<Problem> problems) {
  public ImportReport {
    problems = List.copyOf(problems);
  }

  /**
   * One thing that could not be read.
   *
   * @param entry   the entry's index in {@code log.entries}, from 0
   * @param field   the JSON path inside the entry, e.g. {@code request.url}
   * @param message what is wrong
   * @param skipped whether the whole entry was left out (else only this field)
   */
  public record Problem(int entry, String field, String message, boolean skipped) {
    @Override
    public String toString() {
      return "entry " + entry + ", " + field + ": " + message + (skipped ? " (entry skipped)" : " (field ignored)");
    }
  }

  /** Entries left out. */
  public long skipped() {
    return problems.stream().filter(Problem::skipped).count();
  }
}
