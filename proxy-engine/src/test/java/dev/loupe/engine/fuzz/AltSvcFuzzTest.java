package dev.loupe.engine.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import com.code_intelligence.jazzer.mutation.annotation.WithUtf8Length;
import dev.loupe.engine.internal.upstream.AltSvc;
import java.util.List;

/**
 * {@code Alt-Svc} field values (RFC 7838) as origins may send them: parsing never throws, every
 * alternative has a protocol, a port in 1..65535 and a non-negative max-age, {@code clear} carries
 * no alternatives, and several field lines parse as their concatenation.
 */
class AltSvcFuzzTest {
  @DictionaryEntries({"h3=\":443\"", "h3-29=", "clear", "; ma=", "; persist=1", "\"[::1]:443\"", "\"a.test:8443\"",
      "%3D", ", ", "\\\"", "ma=2592000"})
  @FuzzTest(maxDuration = FuzzBudget.IN_BUILD)
  void anyFieldValue(@NotNull @WithUtf8Length(max = 300) String first, @NotNull @WithUtf8Length(max = 100) String second) {
    AltSvc.Parsed one = AltSvc.parse(first);
    check(one);
    AltSvc.Parsed both = AltSvc.parse(List.of(first, second));
    check(both);
    AltSvc.Parsed other = AltSvc.parse(second);
    if (!one.clear() && !other.clear()) {
      assertThat(both.alternatives().size()).isEqualTo(one.alternatives().size() + other.alternatives().size());
    }
  }

  private static void check(AltSvc.Parsed p) {
    if (p.clear()) {
      assertThat(p.alternatives()).isEmpty();
    }
    for (AltSvc.Alternative a : p.alternatives()) {
      assertThat(a.protocol()).isNotEmpty();
      assertThat(a.port()).isBetween(1, 65535);
      assertThat(a.maxAgeSeconds()).isNotNegative();
    }
  }
}
