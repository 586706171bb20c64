package dev.loupe.app.connect;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Opens the desktop's terminal with a shell that has the Loupe setup applied: the user's own shell
 * (bash, zsh or fish; its usual start-up files are read first, then the setup), in the terminal
 * named by {@code $TERMINAL}, else the first of {@code x-terminal-emulator}, {@code gnome-terminal},
 * {@code konsole}, {@code xfce4-terminal}, {@code kitty}, {@code alacritty}, {@code xterm} found;
 * Terminal.app on macOS; PowerShell in a console window on Windows.
 *
 * <p>The start-up files live in an owner-only temp folder, removed when Loupe exits.
 */
public final class TerminalLauncher {
  private TerminalLauncher() {}

  /** Where the shell and the terminal come from (tests give their own). */
  record Environment(String os, Map<String, String> env, Predicate<Path> executable) {
    static Environment current() {
      return new Environment(System.getProperty("os.name", ""), System.getenv(), Files::isExecutable);
    }
  }

  /**
   * Starts the terminal; returns a description of what was started.
   *
   * @param setup the setup scripts per shell (called with bash, zsh, fish or pwsh)
   * @throws IOException when no terminal is found or it cannot start
   */
  public static String open(java.util.function.Function<TerminalSetup.Shell, String> setup) throws IOException {
    Environment e = Environment.current();
    Path dir = Files.createTempDirectory("loupe-terminal-");
    dir.toFile().deleteOnExit();
    List<String> command = command(e, dir, setup);
    for (Path p : Files.list(dir).toList()) {
      p.toFile().deleteOnExit();
    }
    new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    return command.get(0);
  }

  /** The command line that opens the terminal; writes the start-up files into {@code dir}. */
  static List<String> command(Environment e, Path dir, java.util.function.Function<TerminalSetup.Shell, String> setup)
      throws IOException {
    String os = e.os().toLowerCase(Locale.ROOT);
    if (os.contains("win")) {
      Path ps1 = dir.resolve("loupe.ps1");
      Files.writeString(ps1, setup.apply(TerminalSetup.Shell.PWSH) + "Write-Host 'Loupe: this window uses the proxy.'\n");
      return List.of("cmd", "/c", "start", "Loupe", "powershell", "-NoExit", "-ExecutionPolicy", "Bypass",
          "-File", ps1.toString());
    }
    List<String> shell = shell(e, dir, setup);
    if (os.contains("mac")) {
      Path script = dir.resolve("loupe.command");
      Files.writeString(script, "#!/bin/sh\nexec " + String.join(" ", shell.stream().map(TerminalLauncher::quote).toList())
          + "\n");
      script.toFile().setExecutable(true, true);
      return List.of("open", "-a", "Terminal", script.toString());
    }
    String chosen = e.env().get("TERMINAL");
    List<String> candidates = new ArrayList<>();
    if (chosen != null && !chosen.isBlank()) {
      candidates.add(chosen.trim());
    }
    candidates.addAll(List.of("x-terminal-emulator", "gnome-terminal", "konsole", "xfce4-terminal", "kitty",
        "alacritty", "xterm"));
    for (String t : candidates) {
      Path exe = find(e, t);
      if (exe == null) {
        continue;
      }
      List<String> cmd = new ArrayList<>();
      cmd.add(exe.toString());
      String name = exe.getFileName().toString();
      switch (name) {
        case "gnome-terminal" -> cmd.add("--");
        case "kitty" -> { }
        case "xfce4-terminal" -> cmd.add("-x");
        default -> cmd.add("-e");
      }
      cmd.addAll(shell);
      return cmd;
    }
    throw new IOException("no terminal found (set $TERMINAL, or install e.g. xterm); use Copy setup instead");
  }

  /** The user's shell, started so it reads its own start-up files and then the setup. */
  private static List<String> shell(Environment e, Path dir, java.util.function.Function<TerminalSetup.Shell, String> setup)
      throws IOException {
    String sh = e.env().getOrDefault("SHELL", "/bin/bash");
    String name = Path.of(sh).getFileName().toString();
    String banner = "echo 'Loupe: this shell uses the proxy (loupe env --unset to stop).'\n";
    switch (name) {
      case "zsh" -> {
        Path zdot = Files.createDirectories(dir.resolve("zsh"));
        Files.writeString(zdot.resolve(".zshrc"), "[ -f \"$HOME/.zshrc\" ] && ZDOTDIR=\"$HOME\" . \"$HOME/.zshrc\"\n"
            + setup.apply(TerminalSetup.Shell.ZSH) + banner);
        return List.of("env", "ZDOTDIR=" + zdot, sh, "-i");
      }
      case "fish" -> {
        Path f = dir.resolve("loupe.fish");
        Files.writeString(f, setup.apply(TerminalSetup.Shell.FISH) + banner);
        return List.of(sh, "-i", "-C", "source " + quote(f.toString()));
      }
      default -> {
        Path rc = dir.resolve("bashrc");
        String bash = find(e, "bash") != null ? find(e, "bash").toString() : "/bin/bash";
        Files.writeString(rc, "[ -f \"$HOME/.bashrc\" ] && . \"$HOME/.bashrc\"\n" + setup.apply(TerminalSetup.Shell.BASH)
            + "PS1=\"(loupe) ${PS1:-\\$ }\"\n" + banner);
        return List.of(bash, "--rcfile", rc.toString(), "-i");
      }
    }
  }

  private static Path find(Environment e, String program) {
    if (program.contains("/")) {
      Path p = Path.of(program);
      return e.executable().test(p) ? p : null;
    }
    for (String d : e.env().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
      if (!d.isEmpty() && e.executable().test(Path.of(d, program))) {
        return Path.of(d, program);
      }
    }
    return null;
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
