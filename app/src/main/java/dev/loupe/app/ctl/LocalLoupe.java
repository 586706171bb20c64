package dev.loupe.app.ctl;

import dev.loupe.app.control.ControlChannel;
import dev.loupe.app.control.ControlEndpoint;
import dev.loupe.app.control.ControlToken;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the Loupe running on this machine with a given configuration directory, from the
 * {@code control.json} and {@code control-token} files its control API writes there.
 */
public final class LocalLoupe {
  private LocalLoupe() {}

  /** Why no running Loupe could be reached, for a message. */
  public static final class NotFound extends Exception {
    NotFound(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * A channel to the Loupe whose control API {@code confdir} names, checked by asking it for its
   * status (so a file left by a Loupe that died, or one on another port now, is not taken for it).
   *
   * @throws NotFound naming what is missing and how to start a Loupe that can be found
   */
  public static ControlChannel find(Path confdir) throws NotFound {
    Optional<ControlEndpoint> endpoint;
    try {
      endpoint = ControlEndpoint.read(confdir);
    } catch (IOException | IllegalArgumentException e) {
      throw new NotFound("cannot read " + confdir.resolve(ControlEndpoint.FILE_NAME) + ": " + e.getMessage());
    }
    if (endpoint.isEmpty()) {
      throw new NotFound("no Loupe with a control API runs with the configuration directory " + confdir
          + " (no " + ControlEndpoint.FILE_NAME + "; start one with --control 127.0.0.1:0)");
    }
    ControlEndpoint e = endpoint.get();
    if (!e.processAlive()) {
      throw new NotFound("the Loupe that wrote " + confdir.resolve(ControlEndpoint.FILE_NAME) + " (pid " + e.pid()
          + ") is not running any more");
    }
    String token;
    try {
      token = ControlToken.read(e.tokenFile());
    } catch (IllegalArgumentException ex) {
      throw new NotFound(ex.getMessage());
    }
    HttpControlChannel channel = new HttpControlChannel(e.url(), token);
    try {
      ControlChannel.Reply r = channel.send("GET", "/", Map.of(), null);
      if (!r.ok()) {
        throw new NotFound("the control API at " + e.url() + " answered " + r.status() + ": " + r.body().strip());
      }
    } catch (IOException ex) {
      throw new NotFound("the control API at " + e.url() + " does not answer: " + ex.getMessage());
    }
    return channel;
  }
}
