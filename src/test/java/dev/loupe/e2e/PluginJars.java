package dev.loupe.e2e;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The example plugins of {@code plugins/} as built by this reactor. They are not on the test class
 * path (see src/test/pom.xml); a test copies their jars where a user would put them.
 *
 * <p>{@code mvn verify} (and {@code package}) builds {@code plugins/NAME/target/loupe-plugin-NAME.jar};
 * {@code mvn test} stops before packaging, so when the jar is missing or older than the compiled
 * classes, the classes are put into a jar here (same content, same service files).
 */
final class PluginJars {
  static final List<String> EXAMPLES = List.of("add-header", "jwt-view", "flow-log");

  private PluginJars() {}

  /** The repository's {@code plugins/} folder (tests run in {@code src/test}). */
  static Path pluginsDir() {
    Path here = Path.of("").toAbsolutePath();
    for (Path p = here; p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("plugins/add-header"))) {
        return p.resolve("plugins");
      }
    }
    throw new IllegalStateException("no plugins/ folder above " + here);
  }

  /** Compiled classes of example {@code name} ({@code plugins/NAME/target/classes}). */
  static Path classes(String name) {
    Path c = pluginsDir().resolve(name).resolve("target/classes");
    if (!Files.isDirectory(c)) {
      throw new IllegalStateException(c + " is missing: build the plugins first (mvn -pl plugins/" + name + " -am"
          + " package)");
    }
    return c;
  }

  /** Copies example {@code name}'s jar into {@code dir} (as {@code loupe-plugin-NAME.jar}); returns it. */
  static Path copyInto(String name, Path dir) {
    try {
      Files.createDirectories(dir);
      Path target = dir.resolve("loupe-plugin-" + name + ".jar");
      Path built = pluginsDir().resolve(name).resolve("target/loupe-plugin-" + name + ".jar");
      Path classes = classes(name);
      if (Files.isRegularFile(built) && !Files.getLastModifiedTime(built).toInstant().isBefore(newest(classes))) {
        Files.copy(built, target);
      } else {
        jar(classes, target);
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static java.time.Instant newest(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).map(p -> {
        try {
          return Files.getLastModifiedTime(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).max(FileTime::compareTo).map(FileTime::toInstant).orElse(java.time.Instant.EPOCH);
    }
  }

  private static void jar(Path classes, Path target) throws IOException {
    try (OutputStream os = Files.newOutputStream(target); JarOutputStream jar = new JarOutputStream(os);
         Stream<Path> files = Files.walk(classes)) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        jar.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
        Files.copy(f, jar);
        jar.closeEntry();
      }
    }
  }
}
