package dev.loupe.app.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.engine.api.ListenAddress;
import dev.loupe.engine.api.ProxyAuth;
import dev.loupe.engine.api.util.AtomicFiles;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a running Loupe can be reached, in {@code CONFDIR/running.json} (owner-only), so
 * {@code loupe env} and {@code loupe browser} started from another terminal find it: its process,
 * its address as clients on this machine reach it, and the credentials those clients need (only
 * when local clients must authenticate). Written at start, removed at exit; a file whose process is
 * gone (after a crash) is ignored.
 *
 * <p>It also says where {@code loupe browser} asks for a listener of its own, so the browser's
 * flows are tagged with its name ({@link LaunchRequests}); a file written by a Loupe without it has
 * {@code launchPort} 0.
 *
 * @param pid         the Loupe process
 * @param proxy       the proxy's address for local clients (a wildcard listen address becomes loopback)
 * @param username    set when local clients must authenticate, else null
 * @param password    its password, or null
 * @param launchPort  the loopback port of its {@link LaunchRequests}, or 0 for none
 * @param launchToken the token those requests carry, or null
 */
public record RunningFile(long pid, InetSocketAddress proxy, String username, String password, int launchPort,
    String launchToken) {
  public static final String FILE_NAME = "running.json";

  /** The record for this process listening on {@code listening} with {@code auth}; {@code launch} may be null. */
  public static RunningFile of(InetSocketAddress listening, ProxyAuth auth, LaunchRequests launch) {
    boolean localAuth = auth != null && !auth.loopbackExempt();
    return new RunningFile(ProcessHandle.current().pid(), local(listening), localAuth ? auth.username() : null,
        localAuth ? auth.password() : null, launch == null ? 0 : launch.port(), launch == null ? null : launch.token());
  }

  /** Where its launch requests go, or null when it serves none. */
  public InetSocketAddress launchAddress() {
    return launchPort <= 0 || launchToken == null ? null
        : new InetSocketAddress(InetAddress.getLoopbackAddress(), launchPort);
  }

  /** {@code 0.0.0.0:P} / {@code [::]:P} become {@code 127.0.0.1:P}: what a client on this machine connects to. */
  public static InetSocketAddress local(InetSocketAddress a) {
    return a.getAddress().isAnyLocalAddress() ? new InetSocketAddress(InetAddress.getLoopbackAddress(), a.getPort()) : a;
  }

  /** Writes it (owner-only); {@link #withdraw} removes it. */
  public Path publish(Path confdir) throws IOException {
    ObjectNode n = new ObjectMapper().createObjectNode();
    n.put("pid", pid).put("proxy", ListenAddress.format(proxy));
    if (username != null) {
      n.put("username", username).put("password", password);
    }
    if (launchPort > 0) {
      n.put("launchPort", launchPort).put("launchToken", launchToken);
    }
    Path f = confdir.resolve(FILE_NAME);
    AtomicFiles.write(f, new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(n));
    return f;
  }

  /** Removes the file when it is this process's. */
  public static void withdraw(Path confdir) {
    RunningFile r = read(confdir);
    if (r != null && r.pid() == ProcessHandle.current().pid()) {
      try {
        Files.deleteIfExists(confdir.resolve(FILE_NAME));
      } catch (IOException ignored) {
        // read() ignores files of processes that are gone
      }
    }
  }

  /** The running Loupe's record, or null when none runs (no file, or its process is gone). */
  public static RunningFile read(Path confdir) {
    Path f = confdir.resolve(FILE_NAME);
    if (!Files.isRegularFile(f)) {
      return null;
    }
    try {
      JsonNode n = new ObjectMapper().readTree(f.toFile());
      long pid = n.path("pid").asLong(-1);
      if (pid <= 0 || ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) == Boolean.FALSE) {
        return null;
      }
      return new RunningFile(pid, ListenAddress.parse(n.path("proxy").asText()),
          n.hasNonNull("username") ? n.get("username").asText() : null,
          n.hasNonNull("password") ? n.get("password").asText() : null, n.path("launchPort").asInt(0),
          n.hasNonNull("launchToken") ? n.get("launchToken").asText() : null);
    } catch (IOException | IllegalArgumentException e) {
      return null;
    }
  }
}
