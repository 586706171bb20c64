package dev.loupe.app.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.engine.api.ProxyAuth;
import dev.loupe.engine.api.util.AtomicFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * Remote access as the user left it, in {@code CONFDIR/remote-access.json} (readable by the owner
 * alone, since it holds the proxy password): whether Loupe listens on the LAN, whether remote
 * clients must authenticate, and the user name and password they use — generated on first use,
 * changeable in the window.
 *
 * @param enabled     listen on every interface (the LAN) rather than loopback only
 * @param requireAuth remote clients must present the credentials (on by default)
 */
public record RemoteAccessFile(boolean enabled, boolean requireAuth, String username, String password) {
  public static final String FILE_NAME = "remote-access.json";
  private static final String ALPHABET = "abcdefghijkmnpqrstuvwxyzACDEFGHJKLMNPQRSTUVWXYZ23456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  public RemoteAccessFile {
    new ProxyAuth(username, password, true); // validates
  }

  /** The saved state, or a new one (off, authentication on, user {@code loupe}, a new password) saved now. */
  public static RemoteAccessFile load(Path confdir) throws IOException {
    Path f = confdir.resolve(FILE_NAME);
    if (Files.isRegularFile(f)) {
      try {
        JsonNode n = new ObjectMapper().readTree(f.toFile());
        return new RemoteAccessFile(n.path("enabled").asBoolean(false), n.path("requireAuth").asBoolean(true),
            n.path("username").asText("loupe"), n.path("password").asText(""));
      } catch (IOException | IllegalArgumentException e) {
        throw new IOException(f + " is not a valid remote access file (" + e.getMessage()
            + "); fix or delete it", e);
      }
    }
    RemoteAccessFile fresh = new RemoteAccessFile(false, true, "loupe", newPassword());
    fresh.save(confdir);
    return fresh;
  }

  /** Writes the state, owner-only. */
  public void save(Path confdir) throws IOException {
    ObjectNode n = new ObjectMapper().createObjectNode();
    n.put("enabled", enabled).put("requireAuth", requireAuth).put("username", username).put("password", password);
    AtomicFiles.write(confdir.resolve(FILE_NAME), new ObjectMapper().writerWithDefaultPrettyPrinter()
        .writeValueAsBytes(n));
  }

  /** The credentials for remote clients (loopback exempt), or null when authentication is off. */
  public ProxyAuth proxyAuth() {
    return requireAuth ? new ProxyAuth(username, password, true) : null;
  }

  /** 16 characters from an unambiguous alphabet (about 92 bits): easy to type on a phone. */
  public static String newPassword() {
    StringBuilder b = new StringBuilder(16);
    for (int i = 0; i < 16; i++) {
      b.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return "RemoteAccessFile[enabled=" + enabled + ", requireAuth=" + requireAuth + ", user=" + username + "]";
  }
}
