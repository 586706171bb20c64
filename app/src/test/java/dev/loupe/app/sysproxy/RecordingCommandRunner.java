package dev.loupe.app.sysproxy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A {@link CommandRunner} that runs nothing: it records every argv and answers from a script
 * (the first rule whose argv prefix matches; exit 0 with no output otherwise). A rule may answer
 * from a function so a test can model state (a value set, then read back).
 */
final class RecordingCommandRunner implements CommandRunner {
  private final List<List<String>> calls = new ArrayList<>();
  private final Map<List<String>, Function<List<String>, Output>> rules = new LinkedHashMap<>();

  /** Answers commands starting with {@code prefix} with {@code stdout} and exit 0. */
  RecordingCommandRunner on(List<String> prefix, String stdout) {
    return on(prefix, argv -> new Output(0, stdout, ""));
  }

  RecordingCommandRunner on(List<String> prefix, Function<List<String>, Output> answer) {
    rules.put(List.copyOf(prefix), answer);
    return this;
  }

  /** Makes commands starting with {@code prefix} fail with {@code exitCode} and {@code stderr}. */
  RecordingCommandRunner fail(List<String> prefix, int exitCode, String stderr) {
    return on(prefix, argv -> new Output(exitCode, "", stderr));
  }

  @Override
  public synchronized Output run(List<String> argv) {
    calls.add(List.copyOf(argv));
    for (Map.Entry<List<String>, Function<List<String>, Output>> r : rules.entrySet()) {
      List<String> p = r.getKey();
      if (argv.size() >= p.size() && argv.subList(0, p.size()).equals(p)) {
        return r.getValue().apply(argv);
      }
    }
    return new Output(0, "", "");
  }

  synchronized List<List<String>> calls() {
    return List.copyOf(calls);
  }

  /** The calls whose program is {@code program}... with the first argument {@code firstArg}. */
  synchronized List<List<String>> calls(String program, String firstArg) {
    return calls.stream().filter(c -> c.get(0).equals(program) && c.size() > 1 && c.get(1).equals(firstArg)).toList();
  }

  synchronized void clear() {
    calls.clear();
  }
}
