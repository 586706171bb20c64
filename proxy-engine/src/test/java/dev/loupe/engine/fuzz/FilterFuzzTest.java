package dev.loupe.engine.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import com.code_intelligence.jazzer.mutation.annotation.WithUtf8Length;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.filter.FilterSyntaxException;
import dev.loupe.engine.flow.Flow;
import java.util.List;

/**
 * The filter language ({@code docs/FILTERS.md}) on any text: it parses or fails with a {@link
 * FilterSyntaxException} whose position lies inside the text (nothing else is thrown); a parsed
 * filter prints a normalised form that parses back to the same filter and matches the same flows;
 * matching never throws. Regex evaluation cost is not judged here: the user writes the regex.
 */
class FilterFuzzTest {
  /** Made on first use, after Jazzer's agent is in (see the fuzz execution in the POM). */
  private static final class Sample {
    static final List<Flow> FLOWS = FuzzFlows.sample();
  }

  @FuzzTest(maxDuration = FuzzBudget.IN_BUILD)
  void anyExpression(@NotNull @WithUtf8Length(max = 400) String expression) {
    Filter f;
    try {
      f = Filter.parse(expression);
    } catch (FilterSyntaxException e) {
      assertThat(e.position()).as(expression).isBetween(0, expression.length());
      assertThat(e.length()).isBetween(0, expression.length() - e.position());
      return;
    }
    String printed = f.toString();
    Filter again = Filter.parse(printed);
    assertThat(again.toString()).as(expression).isEqualTo(printed);
    for (Flow flow : Sample.FLOWS) {
      boolean matched = f.test(flow);
      assertThat(again.test(flow)).as("%s vs %s", expression, printed).isEqualTo(matched);
      if (matched) {
        assertThat(f.couldMatch(flow)).as(expression).isTrue();
      }
    }
  }
}
