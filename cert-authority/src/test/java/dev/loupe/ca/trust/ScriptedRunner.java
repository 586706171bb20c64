package dev.loupe.ca.trust;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A {@link CommandRunner} for the tools that cannot run here (macOS {@code security}, Windows
 * {@code certutil}, {@code update-ca-certificates} against the real system): records every command
 * line and answers with a scripted result.
 */
final class ScriptedRunner implements CommandRunner {
  final List<List<String>> commands = new CopyOnWriteArrayList<>();
  private final Set<String> available;
  private volatile Function<List<String>, CommandResult> answer;

  ScriptedRunner(String... availablePrograms) {
    this.available = new HashSet<>(List.of(availablePrograms));
    this.answer = argv -> new CommandResult(argv, 0, "", "");
  }

  /** From now on, answers every command with {@code exitCode}, {@code stdout}, {@code stderr}. */
  ScriptedRunner answering(int exitCode, String stdout, String stderr) {
    this.answer = argv -> new CommandResult(argv, exitCode, stdout, stderr);
    return this;
  }

  ScriptedRunner answering(Function<List<String>, CommandResult> answer) {
    this.answer = answer;
    return this;
  }

  @Override
  public CommandResult run(List<String> argv) {
    commands.add(new ArrayList<>(argv));
    return answer.apply(argv);
  }

  @Override
  public boolean isAvailable(String program) {
    return available.contains(program);
  }
}
