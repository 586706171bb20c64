package dev.loupe.app.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.engine.api.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * Where a running Loupe's control API is, for local clients ({@code loupe mcp}, {@code loupe ctl}):
 * {@code CONFDIR/control.json} holds the API's URL, the proxy address and the process id; the token
 * stays in {@code CONFDIR/control-token} ({@link ControlToken}). Both files are readable by their
 * owner alone. The file is written when the API starts and removed when it stops; one left by a
 * Loupe that died is recognised by its process id.
 *
 * @param url       e.g. {@code http://127.0.0.1:9090}
 * @param proxy     the proxy's {@code host:port} when the API started
 * @param pid       the Loupe process
 * @param tokenFile the file holding the bearer token
 */
public record ControlEndpoint(String url, String proxy, long pid, Path tokenFile) {
  /** The file in the configuration directory. */
  public static final String FILE_NAME = "control.json";

  /** Writes this endpoint to {@code confdir/control.json} (owner-only, atomically); returns that path. */
  public Path save(Path confdir) throws IOException {
    ObjectNode o = ControlJson.object();
    o.put("url", url);
    o.put("proxy", proxy);
    o.put("pid", pid);
    o.put("tokenFile", tokenFile.toAbsolutePath().toString());
    o.put("startedAt", Instant.now().toString());
    Path f = confdir.resolve(FILE_NAME);
    AtomicFiles.write(f, ControlJson.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(o));
    return f;
  }

  /** Removes {@code confdir/control.json} if it still describes this endpoint (another Loupe may have replaced it). */
  public void remove(Path confdir) {
    Path f = confdir.resolve(FILE_NAME);
    try {
      Optional<ControlEndpoint> now = read(confdir);
      if (now.isPresent() && now.get().pid() == pid && now.get().url().equals(url)) {
        Files.deleteIfExists(f);
      }
    } catch (IOException | IllegalArgumentException e) {
      // nothing to clean up, or not ours to remove
    }
  }

  /**
   * The endpoint recorded in {@code confdir}, if any.
   *
   * @throws IllegalArgumentException when the file exists but is not one Loupe wrote (names the file)
   */
  public static Optional<ControlEndpoint> read(Path confdir) throws IOException {
    Path f = confdir.resolve(FILE_NAME);
    byte[] b;
    try {
      b = Files.readAllBytes(f);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    JsonNode n;
    try {
      n = ControlJson.MAPPER.readTree(new String(b, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalArgumentException(f + " is not valid JSON: " + e.getMessage());
    }
    if (n == null || !n.path("url").isTextual() || !n.path("pid").canConvertToLong()) {
      throw new IllegalArgumentException(f + " does not name a control API (url, pid)");
    }
    String token = n.path("tokenFile").asText("");
    return Optional.of(new ControlEndpoint(n.get("url").asText(), n.path("proxy").asText(null), n.get("pid").asLong(),
        token.isEmpty() ? confdir.resolve(ControlToken.FILE_NAME) : Path.of(token)));
  }

  /** Whether the process that wrote this is still running (a file left by a crash is stale). */
  public boolean processAlive() {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }
}
