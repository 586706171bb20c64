package dev.loupe.e2e;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
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
   * What the UI may use of the engine today. Issue 14 wants "api, flow, filter, spi" only; the UI
   * still uses {@code intercept} (rules, breakpoints, paused flows, replay drafts) until those types
   * move behind {@code api}. {@code session} is public surface too: the session files the window opens,
   * pages and diffs (issue 15). This keeps it from reaching anything else meanwhile.
   */
  @Test
  void theUiUsesOnlyTheEnginesPublicPackagesAndIntercept() {
    noClasses().that().resideInAPackage("dev.loupe.ui..")
        .should().dependOnClassesThat(com.tngtech.archunit.base.DescribedPredicate.describe(
            "an engine package other than api, flow, filter, spi, session, intercept",
            (com.tngtech.archunit.core.domain.JavaClass c) -> c.getPackageName().startsWith("dev.loupe.engine.")
                && !c.getPackageName().matches("dev\\.loupe\\.engine\\.(api|flow|filter|session|intercept)(\\..*)?")))
        .check(classes);
  }
}
