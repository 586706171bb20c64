package dev.loupe.engine.api.session;

import java.io.IOException;

/**
 * Takes the lines of a session diff as {@link SessionDiff} finds them (in key order), then its
 * counts. Reports ({@link DiffJson}, {@link DiffMarkdown}) and the window's lists are sinks.
 */
public interface DiffSink {
  /** One added, removed or changed flow. */
  void entry(FlowDiff d) throws IOException;

  /** The counts, after the last entry. */
  default void end(DiffSummary summary) throws IOException {
  }
}
