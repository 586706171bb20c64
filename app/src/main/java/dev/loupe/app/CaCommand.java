package dev.loupe.app;

import dev.loupe.ca.CaException;
import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.ConfigDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code loupe ca ...}: the CA certificate for clients to trust. */
@Command(name = "ca", mixinStandardHelpOptions = true,
    description = "Work with Loupe's CA certificate (what clients must trust).",
    subcommands = {CaCommand.Export.class, CaCommand.PathCmd.class})
final class CaCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(System.err);
    return 2;
  }

  static CertificateAuthority load(Path confdir) {
    Path dir = confdir != null ? confdir : ConfigDirectory.defaultDirectory();
    try {
      return CertificateAuthority.loadOrCreate(dir);
    } catch (CaException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** {@code loupe ca export --format pem|der FILE}. */
  @Command(name = "export", mixinStandardHelpOptions = true,
      description = "Write the CA certificate (never the key) to FILE ('-' for standard output, PEM only).")
  static final class Export implements Callable<Integer> {
    @Option(names = "--confdir", paramLabel = "DIR", description = "Where the CA lives (default: per-OS config directory).")
    Path confdir;

    @Option(names = "--format", paramLabel = "pem|der", defaultValue = "pem",
        description = "pem (default) or der.")
    String format;

    @Parameters(paramLabel = "FILE", description = "Where to write it.")
    String file;

    @Override
    public Integer call() throws IOException {
      String f = format.toLowerCase(java.util.Locale.ROOT);
      if (!f.equals("pem") && !f.equals("der")) {
        throw new LoupeCommand.UsageError("--format: expected pem or der, got '" + format + "'");
      }
      CertificateAuthority ca = load(confdir);
      if (file.equals("-")) {
        if (f.equals("der")) {
          throw new LoupeCommand.UsageError("DER cannot go to standard output; give a FILE");
        }
        System.out.print(Files.readString(ca.certificatePath()));
        return 0;
      }
      Path target = Path.of(file);
      if (f.equals("pem")) {
        ca.exportPem(target);
      } else {
        ca.exportDer(target);
      }
      System.out.println(target.toAbsolutePath());
      return 0;
    }
  }

  /** {@code loupe ca path}. */
  @Command(name = "path", mixinStandardHelpOptions = true,
      description = "Print the path of the CA certificate PEM file (creating the CA if needed).")
  static final class PathCmd implements Callable<Integer> {
    @Option(names = "--confdir", paramLabel = "DIR", description = "Where the CA lives (default: per-OS config directory).")
    Path confdir;

    @Override
    public Integer call() {
      System.out.println(load(confdir).certificatePath());
      return 0;
    }
  }
}
