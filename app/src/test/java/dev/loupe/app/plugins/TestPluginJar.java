package dev.loupe.app.plugins;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Builds a plugin jar in a test: compiles sources with the JDK's compiler, adds a service file. */
final class TestPluginJar {
  private TestPluginJar() {}

  /**
   * Writes {@code jar} holding {@code sources} (file name -> Java text, default package or not)
   * compiled against this JVM's class path, and {@code services} as META-INF/services entries.
   */
  static Path build(Path jar, java.util.Map<String, String> sources, java.util.Map<String, String> services)
      throws IOException {
    Path work = Files.createTempDirectory("loupe-test-jar");
    Path src = work.resolve("src");
    Path classes = work.resolve("classes");
    Files.createDirectories(src);
    Files.createDirectories(classes);
    List<String> args = new java.util.ArrayList<>(List.of("-d", classes.toString(), "-classpath",
        System.getProperty("java.class.path"), "-proc:none"));
    for (var e : sources.entrySet()) {
      Path f = src.resolve(e.getKey());
      Files.writeString(f, e.getValue());
      args.add(f.toString());
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
    int rc = javac.run(null, null, errors, args.toArray(String[]::new));
    if (rc != 0) {
      throw new IllegalStateException("test plugin does not compile:\n" + errors.toString(StandardCharsets.UTF_8));
    }
    Files.createDirectories(jar.toAbsolutePath().getParent());
    try (OutputStream os = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(os);
         Stream<Path> files = Files.walk(classes)) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
        Files.copy(f, out);
        out.closeEntry();
      }
      for (var e : services.entrySet()) {
        out.putNextEntry(new JarEntry("META-INF/services/" + e.getKey()));
        out.write((e.getValue() + "\n").getBytes(StandardCharsets.UTF_8));
        out.closeEntry();
      }
    }
    return jar;
  }

  /** A plugin {@code pkg.Name} whose {@code request} sets header {@code X-From-NAME: VALUE} on every flow. */
  static String headerPlugin(String pkg, String name, String value) {
    return "package " + pkg + ";\n"
        + "public class " + name + " implements dev.loupe.spi.Plugin {\n"
        + "  public String name() { return \"" + name.toLowerCase(Locale.ROOT) + "\"; }\n"
        + "  public String version() { return \"" + value + "\"; }\n"
        + "  public String interceptFilter() { return \"~all\"; }\n"
        + "  public java.util.concurrent.CompletionStage<?> request(dev.loupe.spi.RequestHook h) {\n"
        + "    h.setHeader(\"X-From-" + name + "\", \"" + value + "\");\n"
        + "    return null;\n"
        + "  }\n"
        + "}\n";
  }
}
