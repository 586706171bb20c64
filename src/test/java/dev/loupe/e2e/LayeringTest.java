package dev.loupe.e2e;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The module boundaries of DESIGN.md, enforced on the production classes. */
@Timeout(120)
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
}
