package dev.loupe.app.plugins;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles one single-file Java script in memory with the JDK's compiler ({@code javax.tools}),
 * against the running Loupe's class path, and loads the result in a class loader of its own (a
 * reload makes a new one; the old classes go when nothing uses them). Nothing is written to disk.
 *
 * <p>Stateless apart from the compiler handle; thread-safe (each call has its own file manager).
 */
final class ScriptCompiler {
  /** Said when the runtime has no compiler (a JRE, a jlinked runtime without {@code jdk.compiler}). */
  static final String NO_COMPILER = "scripts need a JDK: this Java runtime (" + System.getProperty("java.home")
      + ") has no Java compiler (module jdk.compiler); run Loupe with a JDK's java, or build the plugin into a jar"
      + " for CONFDIR/plugins (docs/PLUGINS.md)";

  private final JavaCompiler compiler;
  private final String classPath;
  private final ClassLoader parent;

  /** {@code compiler} may be null (then {@link #compile} fails with {@link #NO_COMPILER}). */
  ScriptCompiler(JavaCompiler compiler, String classPath, ClassLoader parent) {
    this.compiler = compiler;
    this.classPath = classPath;
    this.parent = parent;
  }

  /** The system compiler, this JVM's class path, the app's class loader. */
  static ScriptCompiler forThisJvm() {
    return new ScriptCompiler(ToolProvider.getSystemJavaCompiler(), System.getProperty("java.class.path"),
        ScriptCompiler.class.getClassLoader());
  }

  boolean available() {
    return compiler != null;
  }

  /** A script that did not compile: {@code message} is the first error, {@code FILE:LINE:COL: text}. */
  static final class CompileException extends Exception {
    CompileException(String message) {
      super(message);
    }
  }

  /**
   * Compiles {@code source} (the text of {@code file}) and returns the loaded top-level and nested
   * classes, in the order javac wrote them.
   */
  List<Class<?>> compile(Path file, String source) throws CompileException {
    if (compiler == null) {
      throw new CompileException(NO_COMPILER);
    }
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    Map<String, ByteArrayOutputStream> out = new java.util.LinkedHashMap<>();
    StandardJavaFileManager standard = compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8);
    try (InMemoryOutput files = new InMemoryOutput(standard, out)) {
      List<String> options = List.of("-classpath", classPath, "-proc:none", "-Xlint:none", "-g");
      JavaFileObject unit = new Source(file, source);
      Boolean ok = compiler.getTask(null, files, diagnostics, options, null, List.of(unit)).call();
      if (!Boolean.TRUE.equals(ok)) {
        throw new CompileException(firstError(file, diagnostics));
      }
    } catch (IOException e) {
      throw new CompileException(file + ": " + e.getMessage());
    }
    Map<String, byte[]> bytes = new HashMap<>();
    out.forEach((name, b) -> bytes.put(name, b.toByteArray()));
    ScriptClassLoader loader = new ScriptClassLoader(file, bytes, parent);
    List<Class<?>> classes = new ArrayList<>();
    for (String name : out.keySet()) {
      try {
        classes.add(loader.loadClass(name));
      } catch (ClassNotFoundException | LinkageError e) {
        throw new CompileException(file + ": cannot load " + name + ": " + e);
      }
    }
    return classes;
  }

  private static String firstError(Path file, DiagnosticCollector<JavaFileObject> diagnostics) {
    int errors = 0;
    String first = null;
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() != Diagnostic.Kind.ERROR) {
        continue;
      }
      errors++;
      if (first == null) {
        first = file.getFileName() + ":" + d.getLineNumber() + ":" + d.getColumnNumber() + ": "
            + d.getMessage(Locale.ROOT).lines().findFirst().orElse("error");
      }
    }
    if (first == null) {
      return file.getFileName() + ": does not compile";
    }
    return errors == 1 ? first : first + " (and " + (errors - 1) + " more error" + (errors == 2 ? "" : "s") + ")";
  }

  /** The script's text as javac's input (named after the file, so a public class must match it). */
  private static final class Source extends SimpleJavaFileObject {
    private final String text;

    Source(Path file, String text) {
      super(URI.create("string:///" + file.getFileName().toString().replace(' ', '_')), Kind.SOURCE);
      this.text = text;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return text;
    }
  }

  /** Keeps javac's class files in memory, by binary name. */
  private static final class InMemoryOutput extends ForwardingJavaFileManager<StandardJavaFileManager> {
    private final Map<String, ByteArrayOutputStream> out;

    InMemoryOutput(StandardJavaFileManager standard, Map<String, ByteArrayOutputStream> out) {
      super(standard);
      this.out = out;
    }

    @Override
    public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind,
        FileObject sibling) {
      return new SimpleJavaFileObject(URI.create("mem:///" + className.replace('.', '/') + kind.extension), kind) {
        @Override
        public OutputStream openOutputStream() {
          ByteArrayOutputStream b = new ByteArrayOutputStream();
          out.put(className, b);
          return b;
        }
      };
    }
  }

  /** Defines a script's classes; everything else comes from Loupe's class loader. */
  private static final class ScriptClassLoader extends ClassLoader {
    private final Map<String, byte[]> classes;

    ScriptClassLoader(Path file, Map<String, byte[]> classes, ClassLoader parent) {
      super("script:" + file.getFileName(), parent);
      this.classes = classes;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      byte[] b = classes.get(name);
      if (b == null) {
        throw new ClassNotFoundException(name);
      }
      return defineClass(name, b, 0, b.length);
    }
  }
}
