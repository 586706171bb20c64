package dev.loupe.ui.status;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Executor;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * The status bar's view of agent activity: the latest line of an {@link ActivityFeed} (shortened)
 * and the last {@value #KEPT} lines (for the tooltip). Lines arrive on any thread and are handed to
 * the FX thread through {@code fx}.
 *
 * <p>Properties are read and written on the FX thread only.
 */
public final class AgentActivity implements AutoCloseable {
  /** Lines kept for the tooltip. */
  public static final int KEPT = 20;
  /** Longest text shown in the bar itself. */
  static final int SHOWN = 64;

  private final ReadOnlyStringWrapper latest = new ReadOnlyStringWrapper(this, "latest", "");
  private final ReadOnlyStringWrapper recent = new ReadOnlyStringWrapper(this, "recent", "");
  private final Deque<String> lines = new ArrayDeque<>();
  private final AutoCloseable subscription;

  public AgentActivity(ActivityFeed feed, Executor fx) {
    this.subscription = feed.subscribe(line -> fx.execute(() -> add(line)));
  }

  /** e.g. {@code MCP: http get_flow {"flowId":12} ok 8ms} (empty until the first call). */
  public ReadOnlyStringProperty latestProperty() {
    return latest.getReadOnlyProperty();
  }

  /** The last {@value #KEPT} lines, newest last, one per line. */
  public ReadOnlyStringProperty recentProperty() {
    return recent.getReadOnlyProperty();
  }

  private void add(String line) {
    String l = line.strip();
    if (l.isEmpty()) {
      return;
    }
    lines.addLast(l);
    while (lines.size() > KEPT) {
      lines.removeFirst();
    }
    int sp = l.indexOf(' '); // the log line starts with its time; the tooltip keeps it, the bar does not
    String shown = "MCP: " + (sp > 0 ? l.substring(sp + 1) : l);
    latest.set(shown.length() > SHOWN ? shown.substring(0, SHOWN - 1) + "…" : shown);
    recent.set(String.join("\n", lines));
  }

  @Override
  public void close() {
    try {
      subscription.close();
    } catch (Exception e) {
      // nothing left to stop
    }
  }
}
