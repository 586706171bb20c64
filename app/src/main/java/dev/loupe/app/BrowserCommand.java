package dev.loupe.app;

import dev.loupe.app.connect.Browser;
import dev.loupe.app.connect.BrowserLauncher;
import dev.loupe.app.connect.Browsers;
import dev.loupe.app.connect.LaunchedBrowser;
import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.ConfigDirectory;
import dev.loupe.engine.api.ListenAddress;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code loupe browser [NAME] [URL]}: starts a browser with a temporary profile that uses the
 * running Loupe and trusts its CA, waits for it to exit, and deletes the profile.
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
    if (target.username() != null) {
      throw new IllegalStateException("the running Loupe asks local clients for a password, which a browser cannot be"
          + " given on its command line; open the browser from Loupe's window (its browsers get a listener of their"
          + " own) or run Loupe without --proxy-auth");
    }
    try (Socket probe = new Socket(target.proxy().getAddress(), target.proxy().getPort())) {
      probe.setSoLinger(true, 0);
    } catch (IOException e) {
      throw new IllegalStateException("no Loupe is listening on " + ListenAddress.format(target.proxy()) + " ("
          + target.source() + "); start it first: java -jar loupe.jar");
    }
    CertificateAuthority ca = CaCommand.load(dir);
    LaunchedBrowser launched = BrowserLauncher.launch(browser, new BrowserLauncher.Spec(target.proxy(), false,
        ca.certificate(), ca.certificatePath(), url, headless, List.of(), Map.of()));
    Runtime.getRuntime().addShutdownHook(new Thread(launched::close, "loupe-browser-stop"));
    System.out.println("Started " + browser.name() + " (pid " + launched.pid() + ") on Loupe at "
        + ListenAddress.format(target.proxy()) + " with a temporary profile; it is deleted when the browser exits.");
    System.out.flush();
    int code = launched.exited().get();
    System.out.println(browser.name() + " exited (" + code + "); its profile is deleted.");
    return 0;
  }
}
