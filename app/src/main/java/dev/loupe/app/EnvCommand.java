package dev.loupe.app;

import dev.loupe.app.connect.ClientFiles;
import dev.loupe.app.connect.TerminalSetup;
import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.ConfigDirectory;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code loupe env}: prints the shell setup that routes a terminal's clients through Loupe. */
@Command(name = "env", mixinStandardHelpOptions = true,
    description = {"Print shell commands that route this terminal's HTTP(S) clients through Loupe and make them trust"
        + " its CA (curl, git, Python, Node, Go, Ruby, npm, pip, Java), each explained in a comment.",
        "Uses the running Loupe (or the one the settings configure, or 127.0.0.1:8080).",
        "bash/zsh: eval \"$(loupe env)\"   fish: loupe env --shell fish | source",
        "PowerShell: loupe env --shell pwsh | Out-String | Invoke-Expression"})
final class EnvCommand implements Callable<Integer> {
  @Option(names = "--shell", paramLabel = "bash|zsh|fish|pwsh",
      description = "The shell's syntax (default: from $SHELL, PowerShell on Windows).")
  String shell;

  @Option(names = "--unset", description = "Print the commands that undo the setup instead.")
  boolean unset;

  @Option(names = "--proxy", paramLabel = "HOST:PORT", description = "Set up for Loupe at this address.")
  String proxy;

  @Option(names = "--confdir", paramLabel = "DIR", description = "Where the CA lives (default: per-OS config directory).")
  Path confdir;

  @Override
  public Integer call() throws Exception {
    TerminalSetup.Shell s;
    try {
      s = TerminalSetup.Shell.parse(shell != null ? shell : defaultShell());
    } catch (IllegalArgumentException e) {
      throw new LoupeCommand.UsageError("--shell: " + e.getMessage());
    }
    Path dir = confdir != null ? confdir : ConfigDirectory.defaultDirectory();
    ClientTarget target = ClientTarget.resolve(dir, proxy);
    CertificateAuthority ca = CaCommand.load(dir);
    TerminalSetup.Target t = new TerminalSetup.Target(target.proxy(), target.username(), target.password(),
        ClientFiles.prepare(dir, ca));
    System.out.print(unset ? TerminalSetup.unset(s, t) : TerminalSetup.script(s, t));
    return 0;
  }

  static String defaultShell() {
    if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win")) {
      return "pwsh";
    }
    String sh = System.getenv("SHELL");
    String name = sh == null ? "bash" : Path.of(sh).getFileName().toString();
    return name.equals("zsh") || name.equals("fish") ? name : "bash";
  }
}
