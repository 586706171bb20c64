package dev.loupe.app;

import dev.loupe.app.connect.Browser;
import dev.loupe.app.connect.BrowserLauncher;
import dev.loupe.app.connect.Browsers;
import dev.loupe.app.connect.LaunchRequests;
import dev.loupe.app.connect.LaunchedBrowser;
import dev.loupe.app.connect.RunningFile;
import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.ConfigDirectory;
import dev.loupe.engine.api.ListenAddress;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code loupe browser [NAME] [URL]}: starts a browser with a temporary profile that uses the
 * running Loupe and trusts its CA, waits for it to exit, and deletes the profile. The running Loupe
 * gives the browser a listener of its own ({@link LaunchRequests}), as its window does to the
 * browsers it opens, so the browser's flows carry its name (the Client column, {@code ~client}) —
 * and a Loupe that asks local clients for a password lets the browser in without one.
 */
@Command(name = "browser", mixinStandardHelpOptions = true,
    description = {"Start a browser with a fresh temporary profile that uses Loupe as its proxy and trusts Loupe's CA"
        + " in that profile only (nothing on the system changes); the profile is deleted when the browser exits.",
        "NAME: chromium, chrome, edge, brave or firefox (default: the first installed; --list shows them)."})
final class BrowserCommand implements Callable<Integer> {
  @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", description = "Which browser.")
  String name;

  @Parameters(index = "1", arity = "0..1", paramLabel = "URL", description = "The page to open.")
  String url;

  @Option(names = "--list", description = "List the browsers found on this machine and exit.")
  boolean list;

  @Option(names = "--headless", description = "Without a window (servers, scripts).")
  boolean headless;

  @Option(names = "--proxy", paramLabel = "HOST:PORT", description = "Use Loupe at this address.")
  String proxy;

  @Option(names = "--confdir", paramLabel = "DIR", description = "Where the CA lives (default: per-OS config directory).")
  Path confdir;

  @Override
  public Integer call() throws Exception {
    List<Browser> installed = Browsers.installed();
    if (list) {
      if (installed.isEmpty()) {
        System.out.println("No supported browser found (Chromium, Chrome, Edge, Brave, Firefox).");
      }
      installed.forEach(b -> System.out.println(b.id() + "\t" + b.name() + "\t" + b.executable()));
      return 0;
    }
    if (installed.isEmpty()) {
      throw new IllegalStateException("no supported browser found (Chromium, Chrome, Edge, Brave or Firefox)");
    }
    Browser browser = name == null ? installed.get(0) : Browsers.pick(installed, name);
    if (browser == null) {
      if (url == null && name.contains(":")) { // "loupe browser https://..." : a URL, not a name
        browser = installed.get(0);
        url = name;
      } else {
        throw new LoupeCommand.UsageError("no browser '" + name + "' here; found: "
            + String.join(", ", installed.stream().map(Browser::id).toList()));
      }
    }
    Path dir = confdir != null ? confdir : ConfigDirectory.defaultDirectory();
    ClientTarget target = ClientTarget.resolve(dir, proxy);
    String[] untagged = new String[1];
    LaunchRequests.Lease lease = lease(target, browser.name(), untagged);
    try {
      InetSocketAddress at = lease != null ? lease.proxy() : target.proxy();
      if (lease == null && target.username() != null) {
        throw new IllegalStateException("the running Loupe asks local clients for a password, which a browser cannot"
            + " be given on its command line, and it gave the browser no listener of its own (" + untagged[0]
            + "); open the browser from Loupe's window or run Loupe without --proxy-auth");
      }
      try (Socket probe = new Socket(at.getAddress(), at.getPort())) {
        probe.setSoLinger(true, 0);
      } catch (IOException e) {
        throw new IllegalStateException("no Loupe is listening on " + ListenAddress.format(at) + " ("
            + target.source() + "); start it first: java -jar loupe.jar");
      }
      CertificateAuthority ca = CaCommand.load(dir);
      LaunchedBrowser launched = BrowserLauncher.launch(browser, new BrowserLauncher.Spec(at, false,
          ca.certificate(), ca.certificatePath(), url, headless, List.of(), Map.of()));
      LaunchRequests.Lease held = lease;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        launched.close();
        if (held != null) {
          held.close();
        }
      }, "loupe-browser-stop"));
      System.out.println("Started " + browser.name() + " (pid " + launched.pid() + ") on Loupe at "
          + ListenAddress.format(at) + " with a temporary profile; it is deleted when the browser exits.");
      System.out.println(lease != null ? "Its flows show \"" + browser.name() + "\" in Loupe's Client column (filter:"
          + " ~client \"" + browser.name() + "\")." : "Its flows are not tagged with its name: " + untagged[0] + ".");
      System.out.flush();
      int code = launched.exited().get();
      System.out.println(browser.name() + " exited (" + code + "); its profile is deleted.");
    } finally {
      if (lease != null) {
        lease.close(); // the running Loupe closes the browser's listener
      }
    }
    return 0;
  }

  /**
   * A listener of the browser's own on the running Loupe, so the flows carry its name, or null (the
   * reason in {@code why[0]}): the target is not the running Loupe of this configuration directory,
   * that Loupe is too old to serve requests, or it refused.
   */
  private static LaunchRequests.Lease lease(ClientTarget target, String label, String[] why) {
    RunningFile running = target.running();
    if (running == null) {
      why[0] = "the Loupe at " + ListenAddress.format(target.proxy()) + " (" + target.source() + ") is not the one"
          + " running with this configuration directory";
      return null;
    }
    if (running.launchAddress() == null) {
      why[0] = "the running Loupe (pid " + running.pid() + ") does not open listeners for browsers started elsewhere";
      return null;
    }
    try {
      return LaunchRequests.Lease.request(running.launchAddress(), running.launchToken(), label,
          Duration.ofSeconds(10));
    } catch (IOException | IllegalArgumentException e) {
      why[0] = "the running Loupe gave it no listener of its own (" + e.getMessage() + ")";
      System.err.println("loupe: " + why[0]);
      return null;
    }
  }
}
