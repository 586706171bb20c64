package dev.loupe.app.control;

import dev.loupe.engine.api.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The control API's bearer token: a new random one per run (256 bits, base64url), or one the user
 * keeps in a file; either way written owner-only to {@code CONFDIR/control-token} for scripts.
 */
public final class ControlToken {
  /** The file in the configuration directory that holds the running API's token. */
  public static final String FILE_NAME = "control-token";
  /** A token from a file must be at least this long (a random one has 43 characters). */
  static final int MIN_LENGTH = 16;

  private ControlToken() {}

  /** A new random token: 32 bytes from {@link SecureRandom}, base64url without padding. */
  public static String generate() {
    byte[] b = new byte[32];
    new SecureRandom().nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /**
   * The token in {@code file} (surrounding whitespace ignored).
   *
   * @throws IllegalArgumentException naming the file and the problem
   */
  public static String read(Path file) {
    String t;
    try {
      t = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
    }
    if (t.length() < MIN_LENGTH) {
      throw new IllegalArgumentException(file + ": the token must be at least " + MIN_LENGTH + " characters");
    }
    if (!t.chars().allMatch(c -> c > 32 && c < 127)) {
      throw new IllegalArgumentException(file + ": the token must be printable ASCII without spaces");
    }
    return t;
  }

  /** Writes {@code token} to {@code confdir/control-token}, readable by the owner alone; returns that path. */
  public static Path save(Path confdir, String token) throws IOException {
    Path f = confdir.resolve(FILE_NAME);
    AtomicFiles.write(f, (token + "\n").getBytes(StandardCharsets.UTF_8));
    return f;
  }
}
