package dev.loupe.e2e;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.flow.Timings;
import dev.loupe.engine.internal.record.RecordingStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The module boundaries of DESIGN.md, enforced on the production classes. */
@Timeout(600) // importing every production class takes minutes on a loaded 2-core machine
class LayeringTest {
  static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        // Production classes arrive as the modules' jars; their test-jars are not production.
        .withImportOption(location -> !location.contains("-tests.jar") && !location.contains("/test-classes/"))
        .importPackages("dev.loupe");
  }

  @Test
  void onlyTheCertificateAuthorityUsesBouncyCastle() {
    noClasses().that().resideOutsideOfPackage("dev.loupe.ca..")
        .should().dependOnClassesThat().resideInAPackage("org.bouncycastle..")
        .check(classes);
  }

  @Test
  void theEngineReachesTheCaOnlyThroughCertificateSource() {
    noClasses().that().resideInAPackage("dev.loupe.engine..")
        .should().dependOnClassesThat().resideInAPackage("dev.loupe.ca..")
        .check(classes);
  }

  @Test
  void nobodyOutsideTheEngineUsesItsInternals() {
    noClasses().that().resideOutsideOfPackage("dev.loupe.engine..")
        .should().dependOnClassesThat().resideInAPackage("dev.loupe.engine.internal..")
        .check(classes);
  }

  @Test
  void theFlowModelKnowsNoNetty() {
    noClasses().that().resideInAPackage("dev.loupe.engine.flow..")
        .should().dependOnClassesThat().resideInAPackage("io.netty..")
        .check(classes);
  }

  @Test
  void theExchangeStateMachineDoesNoIo() {
    noClasses().that().resideInAPackage("dev.loupe.engine.internal.exchange..")
        .should().dependOnClassesThat().resideInAnyPackage("io.netty..", "java.net..", "java.nio.channels..")
        .check(classes);
  }

  @Test
  void theUiUsesNoNettyNoCertificateAuthorityAndNoEngineInternals() {
    noClasses().that().resideInAPackage("dev.loupe.ui..")
        .should().dependOnClassesThat().resideInAnyPackage("io.netty..", "dev.loupe.ca..", "dev.loupe.app..",
            "org.bouncycastle..")
        .because("the UI sees the engine through its api and flow packages only (DESIGN.md); the app wires the rest")
        .check(classes);
  }

  /**
   * Plugins compile against the public surface only: the SPI and the engine's api, flow and filter
   * packages (DESIGN.md, issue 14), plus the JDK. The example plugins are not on this class path
   * (src/test/pom.xml), so they are imported from their build output.
   */
  @Test
  void pluginsSeeOnlyTheSpiAndTheEnginesPublicPackages() {
    JavaClasses plugins = new ClassFileImporter().importPaths(
        PluginJars.EXAMPLES.stream().map(PluginJars::classes).toList());
    assertThat(plugins.stream().map(c -> c.getPackageName()).distinct())
        .as("the example plugins were imported").hasSize(PluginJars.EXAMPLES.size());
    classes().that().resideInAPackage("dev.loupe.plugins..")
        .should().onlyDependOnClassesThat().resideInAnyPackage("dev.loupe.plugins..", "dev.loupe.spi..",
            "dev.loupe.engine.api..", "dev.loupe.engine.flow..", "dev.loupe.engine.filter..", "java..", "javax..")
        .check(plugins);
  }

  /**
   * The UI sees the engine through its public surface only (issue 14): {@code api} (interfaces,
   * configuration, the services the app hands over), the read-only {@code flow} model, the {@code
   * filter} language and the plugin {@code spi}. Interceptor chain, plugin host, session store and
   * the rest are internal, and the UI reaches them only through the interfaces in {@code api}.
   */
  @Test
  void theUiUsesOnlyTheEnginesPublicSurface() {
    noClasses().that().resideInAPackage("dev.loupe.ui..")
        .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("dev.loupe.engine..")
            .and(JavaClass.Predicates.resideOutsideOfPackages(
                "dev.loupe.engine.api..", "dev.loupe.engine.flow..", "dev.loupe.engine.filter..")))
        .because("the UI sees the engine through api, flow, filter and dev.loupe.spi only (issue 14)")
        .check(classes);
  }

  /**
   * The flow the UI, the app and plugins see is read-only (issue 14): {@link Flow}, its {@link
   * Body bodies} and its {@link Timings} are interfaces whose every method takes nothing and returns
   * something. The methods that record them are the engine's ({@code internal.record.RecordedFlow},
   * {@code RecordedBody}, {@code RecordedTimings}), which nobody outside the engine may use (see
   * {@link #nobodyOutsideTheEngineUsesItsInternals}); a flow's lists are unmodifiable views (FlowTest).
   */
  @Test
  void theFlowOutsideTheEngineSeesHasNoMutator() {
    for (Class<?> type : List.of(Flow.class, Body.class, Timings.class)) {
      assertThat(type.isInterface()).as("%s is a read-only interface, not the recording class", type).isTrue();
      assertThat(instanceMethods(type)).as("found %s's methods", type).hasSizeGreaterThan(7);
      assertThat(instanceMethods(type).filter(m -> m.getParameterCount() > 0 || m.getReturnType() == void.class)
          .map(Method::toGenericString).sorted().toList())
          .as("methods of %s that take arguments or return nothing", type).isEmpty();
    }
    assertThat(instanceMethods(Flow.class)).hasSizeGreaterThan(30);
  }

  /**
   * What the UI, the app and plugins see of the store is reading, subscribing and the user's own
   * actions (pause capture, clear, forget a saved flow); recording flows into it is the engine's
   * ({@code internal.record.RecordingStore}). Every method that returns nothing is one of those
   * actions, and none of the recording methods is there, under any signature.
   */
  @Test
  void theStoreOutsideTheEngineSeesDoesNotRecord() {
    assertThat(FlowStore.class.isInterface()).as("FlowStore is an interface, not the recording store").isTrue();
    List<String> userActions = List.of("capturing(boolean)", "clear()", "forget(Flow)");
    assertThat(instanceMethods(FlowStore.class).filter(m -> m.getReturnType() == void.class).map(LayeringTest::signature)
        .sorted().toList()).as("FlowStore methods that return nothing: the user's actions only").isEqualTo(userActions);
    List<String> recording = List.of("add", "updated", "completed", "nextId", "continueAfter");
    assertThat(Arrays.stream(RecordingStore.class.getMethods()).map(Method::getName))
        .as("the recording store records").contains(recording.toArray(String[]::new));
    assertThat(instanceMethods(FlowStore.class).map(Method::getName).filter(recording::contains).toList())
        .as("recording methods on what the UI sees of the store").isEmpty();
    assertThat(instanceMethods(FlowStore.Subscription.class).filter(m -> m.getParameterCount() > 0
            && m.getReturnType() == void.class).map(LayeringTest::signature).toList())
        .as("a subscription does nothing to the store").isEmpty();
  }

  private static Stream<Method> instanceMethods(Class<?> type) {
    return Arrays.stream(type.getMethods()).filter(m -> !Modifier.isStatic(m.getModifiers()))
        .filter(m -> m.getDeclaringClass() != Object.class);
  }

  private static String signature(Method m) {
    return m.getName() + Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName)
        .collect(java.util.stream.Collectors.joining(",", "(", ")"));
  }

  /**
   * No package reaches itself through others, anywhere in Loupe (STYLE.md §5): a type two packages
   * share goes in a leaf package; the engine's composition root is internal (api.ProxyEngine finds
   * it as a service), so the public packages import nothing internal.
   */
  @Test
  void noPackageCycles() {
    slices().matching("dev.loupe.(**)").should().beFreeOfCycles().check(classes);
  }

  /**
   * No class in {@code proxy-engine/src/main} passes 600 lines (STYLE.md §5): a class that does a
   * dozen jobs is split by job before it grows more.
   */
  @Test
  void noEngineClassOver600Lines() throws IOException {
    Path sources = repositoryRoot().resolve("proxy-engine/src/main/java");
    List<String> tooLong;
    try (Stream<Path> files = Files.walk(sources)) {
      tooLong = files.filter(f -> f.toString().endsWith(".java")).map(f -> {
        try (Stream<String> lines = Files.lines(f)) {
          long n = lines.count();
          return n > 600 ? sources.relativize(f) + " (" + n + " lines)" : null;
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).filter(java.util.Objects::nonNull).sorted().toList();
    }
    assertThat(Files.isDirectory(sources.resolve("dev/loupe/engine/internal/relay"))).as("found the engine sources").isTrue();
    assertThat(tooLong).as("classes over 600 lines in proxy-engine/src/main; split them by job").isEmpty();
  }

  /** The repository (tests run in {@code src/test}). */
  private static Path repositoryRoot() {
    Path here = Path.of("").toAbsolutePath();
    for (Path p = here; p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("proxy-engine/src/main/java"))) {
        return p;
      }
    }
    throw new IllegalStateException("no proxy-engine/ above " + here);
  }
}
