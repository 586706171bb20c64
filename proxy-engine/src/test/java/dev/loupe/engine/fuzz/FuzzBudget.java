package dev.loupe.engine.fuzz;

/**
 * How long each fuzz target fuzzes inside {@code mvn verify} (after its seeds). Jazzer 0.24 takes
 * the budget only from the annotation; longer runs go through {@code scripts/fuzz-long.sh}, which
 * runs the same targets with Jazzer's own driver and a time limit of its choosing.
 */
final class FuzzBudget {
  static final String IN_BUILD = "4s";

  private FuzzBudget() {}
}
