package dev.loupe.ca.trust;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** An owner-only temporary file holding given bytes, deleted on close. */
final class TempFile implements AutoCloseable {
  private final Path path;

  private TempFile(Path path) {
    this.path = path;
  }

  static TempFile of(String prefix, String suffix, byte[] content) throws IOException {
    Path path;
    try {
      path = Files.createTempFile(prefix, suffix, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      path = Files.createTempFile(prefix, suffix);
    }
    Files.write(path, content);
    return new TempFile(path);
  }

  Path path() {
    return path;
  }

  @Override
  public void close() {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // a leftover empty password file or public certificate in the temp dir harms nobody
    }
  }
}
