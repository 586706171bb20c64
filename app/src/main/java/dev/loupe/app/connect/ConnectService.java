package dev.loupe.app.connect;

import dev.loupe.ca.CertificateAuthority;
import dev.loupe.engine.api.AccessLog;
import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.ListenAddress;
import dev.loupe.engine.api.ProxyAuth;
import dev.loupe.engine.api.ProxyEngine;
import dev.loupe.ui.connect.ConnectPort;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The window's connect controls on the real thing: browsers on listeners of their own
 * ({@link ClientListeners}: reopened on the same port when the proxy restarts, closed when the
 * browser exits), the terminal on a "Terminal" listener, the setup scripts, and remote access (saved
 * in {@link RemoteAccessFile}; applying it restarts the proxy on the LAN or loopback address with the
 * credentials, and tells {@link #onListening} listeners where it now listens).
 *
 * <p>Thread-safe; the blocking methods are called from the window's background threads.
 */
public final class ConnectService implements ConnectPort, AutoCloseable {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

  /** Restarts the proxy on a new configuration; returns the new engine. */
  public interface Restarter {
    ProxyEngine restart(EngineConfig next) throws IOException;
  }

  private final Supplier<ProxyEngine> engine;
  private final Supplier<EngineConfig> config;
  private final Restarter restarter;
  /** The window's status bar and whoever else follows where the proxy listens. */
  private final List<Consumer<String>> listening = new CopyOnWriteArrayList<>();
  private final Path confdir;
  private final CertificateAuthority ca;
  private final ClientListeners listeners;
  private final List<Launch> launches = new CopyOnWriteArrayList<>();
  private ClientListeners.Entry terminal;

  /** A launched browser and its listener. */
  private record Launch(String label, ClientListeners.Entry listener, LaunchedBrowser browser) {}

  /**
   * @param listeners where browsers and the terminal get listeners of their own (the app reopens them
   *                  when the proxy restarts)
   */
  public ConnectService(Supplier<ProxyEngine> engine, Supplier<EngineConfig> config, Restarter restarter,
      ClientListeners listeners, Path confdir, CertificateAuthority ca) {
    this.engine = engine;
    this.config = config;
    this.restarter = restarter;
    this.listeners = listeners;
    this.confdir = confdir;
    this.ca = ca;
  }

  @Override
  public String unsupportedReason() {
    return config.get().reverse() != null ? "Loupe runs in reverse mode (clients do not choose a reverse proxy)" : null;
  }

  @Override
  public List<BrowserChoice> browsers() {
    return Browsers.installed().stream().map(b -> new BrowserChoice(b.id(), b.name())).toList();
  }

  @Override
  public Outcome openBrowser(String id, String url) {
    Browser b = Browsers.pick(Browsers.installed(), id);
    if (b == null) {
      return new Outcome(false, "No browser '" + id + "' is installed any more");
    }
    ClientListeners.Entry listener;
    try {
      listener = listeners.open(b.name());
    } catch (IOException | RuntimeException e) {
      return new Outcome(false, "Cannot open a listener for " + b.name() + ": " + e.getMessage());
    }
    LaunchedBrowser launched;
    try {
      launched = BrowserLauncher.launch(b, BrowserLauncher.Spec.of(listener.address(), ca.certificate(),
          ca.certificatePath(), url));
    } catch (IOException | RuntimeException e) {
      listener.close();
      return new Outcome(false, "Cannot start " + b.name() + ": " + e.getMessage());
    }
    Launch launch = new Launch(b.name(), listener, launched);
    launches.add(launch);
    launched.onExit(() -> {
      launches.remove(launch);
      listener.close();
    });
    try {
      int code = launched.exited().get(1500, TimeUnit.MILLISECONDS);
      return new Outcome(false, b.name() + " exited at once (status " + code + "): " + launched.outputTail());
    } catch (java.util.concurrent.TimeoutException e) {
      return new Outcome(true, "Started " + b.name() + " with a temporary profile that trusts Loupe; its flows show \""
          + b.name() + "\" in the Client column (filter: ~client \"" + b.name() + "\")");
    } catch (Exception e) {
      return new Outcome(false, b.name() + ": " + e.getMessage());
    }
  }

  @Override
  public List<String> runningBrowsers() {
    return launches.stream().filter(l -> l.browser().isRunning())
        .map(l -> l.label() + " (pid " + l.browser().pid() + ")").toList();
  }

  @Override
  public String terminalSetup(String shell) {
    return TerminalSetup.script(TerminalSetup.Shell.parse(shell), target(engine.get().address()));
  }

  private TerminalSetup.Target target(InetSocketAddress proxy) {
    ProxyAuth auth = config.get().proxyAuth();
    boolean local = auth != null && !auth.loopbackExempt();
    try {
      return new TerminalSetup.Target(RunningFile.local(proxy), local ? auth.username() : null,
          local ? auth.password() : null, ClientFiles.prepare(confdir, ca));
    } catch (IOException e) {
      throw new IllegalStateException("cannot write the CA files in " + confdir + ": " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized Outcome openTerminal() {
    try {
      if (terminal == null || !terminal.isOpen()) {
        terminal = listeners.open("Terminal");
      }
      TerminalSetup.Target t = target(terminal.address());
      String started = TerminalLauncher.open(shell -> TerminalSetup.script(shell, t));
      return new Outcome(true, "Opened " + Path.of(started).getFileName() + "; its clients' flows show \"Terminal\" in"
          + " the Client column");
    } catch (IOException | RuntimeException e) {
      return new Outcome(false, "Cannot open a terminal: " + e.getMessage());
    }
  }

  @Override
  public RemoteAccess remoteAccess() {
    RemoteAccessFile f;
    try {
      f = RemoteAccessFile.load(confdir);
    } catch (IOException e) {
      f = new RemoteAccessFile(false, true, "loupe", RemoteAccessFile.newPassword());
    }
    InetSocketAddress listening = engine.get().address();
    boolean open = !listening.getAddress().isLoopbackAddress();
    ProxyAuth auth = config.get().proxyAuth();
    // while open, the credentials in force (--proxy-auth may have set others than the saved ones)
    boolean inForce = open && auth != null;
    return new RemoteAccess(open, open ? auth != null : f.requireAuth(), inForce ? auth.username() : f.username(),
        inForce ? auth.password() : f.password(), listening.getPort(), lanAddresses());
  }

  @Override
  public synchronized RemoteAccess applyRemoteAccess(RemoteAccess wanted) {
    RemoteAccessFile f = new RemoteAccessFile(wanted.enabled(), wanted.requireAuth(), wanted.username(),
        wanted.password()); // IllegalArgumentException for bad credentials
    EngineConfig old = config.get();
    int port = engine.get().address().getPort();
    InetSocketAddress listen = wanted.enabled() ? new InetSocketAddress("0.0.0.0", port)
        : new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    ProxyAuth explicit = old.proxyAuth() != null && !old.proxyAuth().loopbackExempt() ? old.proxyAuth() : null;
    ProxyAuth auth = explicit != null ? explicit : wanted.enabled() ? f.proxyAuth() : null;
    try {
      f.save(confdir);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot save " + confdir.resolve(RemoteAccessFile.FILE_NAME) + ": "
          + e.getMessage(), e);
    }
    if (!listen.equals(old.listen()) || !java.util.Objects.equals(auth, old.proxyAuth())) {
      ProxyEngine now;
      try {
        now = restarter.restart(old.toBuilder().listen(listen).proxyAuth(auth).build());
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot listen on " + listen + ": " + e.getMessage(), e);
      }
      String text = listeningText(now.address(), now.config().proxyAuth());
      listening.forEach(l -> l.accept(text));
    }
    return remoteAccess();
  }

  @Override
  public void onListening(Consumer<String> listener) {
    listening.add(listener);
  }

  /**
   * Where a proxy listening on {@code listening} with {@code auth} can be reached, for the status
   * bar: the address itself on loopback; on a wildcard address, this machine's LAN addresses (see
   * {@link #lanAddresses()}) with the port; off loopback, whether clients must log in.
   */
  public static String listeningText(InetSocketAddress listening, ProxyAuth auth) {
    return listeningText(listening, auth, listening.getAddress().isAnyLocalAddress() ? lanAddresses() : List.of());
  }

  static String listeningText(InetSocketAddress listening, ProxyAuth auth, List<String> lan) {
    if (listening.getAddress().isLoopbackAddress()) {
      return ListenAddress.format(listening);
    }
    String where = !listening.getAddress().isAnyLocalAddress() || lan.isEmpty() ? ListenAddress.format(listening)
        : String.join(", ", lan.stream()
            .map(a -> (a.indexOf(':') >= 0 ? "[" + a + "]" : a) + ":" + listening.getPort()).toList());
    String login = auth == null ? "NO login: anyone on the network can use it"
        : auth.loopbackExempt() ? "login required" : "login required, on this machine too";
    return where + " (remote access, " + login + ")";
  }

  @Override
  public List<String> refusals() {
    List<AccessLog.Refusal> recent = engine.get().accessLog().recent();
    return recent.subList(Math.max(0, recent.size() - 50), recent.size()).stream()
        .map(r -> TIME.format(r.time()) + "  " + r).toList();
  }

  /** This machine's addresses a device on the LAN can reach: IPv4 first, then global IPv6. */
  public static List<String> lanAddresses() {
    List<String> v4 = new ArrayList<>();
    List<String> v6 = new ArrayList<>();
    try {
      for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (!ni.isUp() || ni.isLoopback() || ni.isVirtual() || ni.isPointToPoint()) {
          continue;
        }
        for (InetAddress a : Collections.list(ni.getInetAddresses())) {
          if (a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isMulticastAddress()) {
            continue;
          }
          if (a instanceof Inet4Address) {
            v4.add(a.getHostAddress());
          } else if (a instanceof Inet6Address) {
            v6.add(a.getHostAddress().replaceAll("%.*$", ""));
          }
        }
      }
    } catch (SocketException e) {
      return List.of();
    }
    v4.addAll(v6);
    return v4;
  }

  /** Stops the browsers started from here (their profiles are deleted). */
  @Override
  public void close() {
    for (Launch l : launches) {
      l.browser().close();
    }
  }
}
