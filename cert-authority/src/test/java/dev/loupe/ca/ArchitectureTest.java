package dev.loupe.ca;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Layering: Bouncy Castle stays in internal.bc, and the public API speaks only JDK types. */
@Timeout(60)
class ArchitectureTest {
  private static final List<Class<?>> PUBLIC_API =
      List.of(CertificateAuthority.class, LeafCertificate.class, CaException.class,
          ConfigDirectory.class, KeyAlgorithm.class,
          dev.loupe.ca.trust.TrustStores.class, dev.loupe.ca.trust.TrustStore.class,
          dev.loupe.ca.trust.TrustStatus.class, dev.loupe.ca.trust.TrustResult.class,
          dev.loupe.ca.trust.CaCertificate.class, dev.loupe.ca.trust.CommandRunner.class,
          dev.loupe.ca.trust.CommandResult.class, dev.loupe.ca.trust.ProcessCommandRunner.class,
          dev.loupe.ca.trust.NssDatabase.class, dev.loupe.ca.trust.AnchorDirectoryStore.class,
          dev.loupe.ca.trust.MacKeychainStore.class, dev.loupe.ca.trust.WindowsRootStore.class,
          dev.loupe.ca.trust.FirefoxProfiles.class);

  @Test
  void onlyInternalBcImportsBouncyCastle() {
    JavaClasses production =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.loupe.ca");
    noClasses()
        .that().resideOutsideOfPackage("dev.loupe.ca.internal.bc..")
        .should().dependOnClassesThat().resideInAPackage("org.bouncycastle..")
        .check(production);
  }

  @Test
  void publicApiExposesOnlyJdkAndOwnTypes() {
    List<String> offenders = new ArrayList<>();
    for (Class<?> type : PUBLIC_API) {
      assertThat(Modifier.isPublic(type.getModifiers())).as(type.getName()).isTrue();
      for (Method method : type.getDeclaredMethods()) {
        if (Modifier.isPublic(method.getModifiers())) {
          check(method.getGenericReturnType(), method.toString(), offenders);
          for (Type parameter : method.getGenericParameterTypes()) {
            check(parameter, method.toString(), offenders);
          }
        }
      }
      for (Constructor<?> constructor : type.getDeclaredConstructors()) {
        if (Modifier.isPublic(constructor.getModifiers())) {
          for (Type parameter : constructor.getGenericParameterTypes()) {
            check(parameter, constructor.toString(), offenders);
          }
        }
      }
      if (type.isRecord()) {
        for (RecordComponent component : type.getRecordComponents()) {
          check(component.getGenericType(), component.toString(), offenders);
        }
      }
    }
    assertThat(offenders).isEmpty();
  }

  private static void check(Type type, String where, List<String> offenders) {
    if (type instanceof ParameterizedType) {
      ParameterizedType parameterized = (ParameterizedType) type;
      check(parameterized.getRawType(), where, offenders);
      for (Type argument : parameterized.getActualTypeArguments()) {
        check(argument, where, offenders);
      }
    } else if (type instanceof Class<?>) {
      Class<?> c = (Class<?>) type;
      while (c.isArray()) {
        c = c.getComponentType();
      }
      boolean allowed = c.isPrimitive() || c.getName().startsWith("java.")
          || c.getPackageName().equals("dev.loupe.ca") || c.getPackageName().equals("dev.loupe.ca.trust");
      if (!allowed) {
        offenders.add(where + " exposes " + c.getName());
      }
    }
  }
}
