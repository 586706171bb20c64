package dev.loupe.app.connect;

import dev.loupe.engine.api.ProxyEngine;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * What a running Loupe (regular mode, window or headless) offers clients started from elsewhere:
 * {@code running.json} ({@link RunningFile}: its address, the credentials local clients need, where
 * to ask for a listener), the {@link LaunchRequests} server behind it, and the launched clients'
 * {@link ClientListeners}. After a proxy restart ({@link #restarted}) the listeners are reopened and
 * the file rewritten with the new address and credentials; {@link #close()} withdraws it.
 *
 * <p>Thread-safe.
 */
public final class RunningLoupe implements AutoCloseable {
  private final Path confdir;
  private final ClientListeners clients;
  private final LaunchRequests launches;

  private RunningLoupe(Path confdir, ClientListeners clients, LaunchRequests launches) {
    this.confdir = confdir;
    this.clients = clients;
    this.launches = launches;
  }

  /**
   * Starts serving launch requests and publishes {@code running.json} for {@code engine.get()}.
   *
   * @throws IOException when the file cannot be written or the request port cannot be bound
   */
  public static RunningLoupe start(Path confdir, Supplier<ProxyEngine> engine) throws IOException {
    ClientListeners clients = new ClientListeners(engine);
    LaunchRequests launches = LaunchRequests.start(clients);
    RunningLoupe r = new RunningLoupe(confdir, clients, launches);
    try {
      r.publish(engine.get());
    } catch (IOException e) {
      launches.close();
      throw e;
    }
    return r;
  }

  /** The listeners of launched clients (the window's browsers and terminal use them too). */
  public ClientListeners clients() {
    return clients;
  }

  /** After a proxy restart: the launched clients' listeners on {@code next}, and the file updated. */
  public void restarted(ProxyEngine next) {
    clients.reopenOn(next);
    try {
      publish(next);
    } catch (IOException e) {
      System.err.println("Loupe: cannot update " + confdir.resolve(RunningFile.FILE_NAME) + " (loupe env and loupe"
          + " browser find this Loupe through it): " + e.getMessage());
    }
  }

  private void publish(ProxyEngine engine) throws IOException {
    RunningFile.of(engine.address(), engine.config().proxyAuth(), launches).publish(confdir);
  }

  /** Withdraws the file and stops serving requests (the listeners they opened close). */
  @Override
  public void close() {
    RunningFile.withdraw(confdir);
    launches.close();
  }
}
