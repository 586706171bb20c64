package dev.loupe.engine.api.session;

/**
 * The counts of a session diff.
 *
 * @param flowsA    flows in A
 * @param flowsB    flows in B
 * @param added     flows only in B
 * @param removed   flows only in A
 * @param changed   matched flows that differ
 * @param unchanged matched flows that do not
 */
public record DiffSummary(long flowsA, long flowsB, long added, long removed, long changed, long unchanged) {
  /** Whether anything differs (the exit status of {@code loupe diff}). */
  public boolean differs() {
    return added + removed + changed > 0;
  }

  @Override
  public String toString() {
    return changed + " changed, " + removed + " removed, " + added + " added, " + unchanged + " unchanged (A: " + flowsA
        + " flows, B: " + flowsB + ")";
  }
}
