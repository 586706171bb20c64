package dev.loupe.engine.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loupe.engine.api.intercept.InterceptList;
import dev.loupe.engine.api.intercept.InterceptService;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Rules and breakpoints JSON (the rules window's export, {@code --rules FILE}, the control API's
 * {@code PUT /rules}): any text is either refused with an {@link IllegalArgumentException} naming
 * the problem, or accepted as entries that export to JSON which imports back to the same entries;
 * and a list saved to a file ({@code persistTo}) loads back the same in a new list.
 */
class InterceptJsonFuzzTest {
  private static final Path DIR;

  static {
    try {
      DIR = Files.createTempDirectory("loupe-fuzz-intercept");
    } catch (IOException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  @DictionaryEntries({"[{", "}]", "\"filter\":", "\"action\":", "\"type\":", "\"mapLocal\"", "\"mapRemote\"",
      "\"rewrite\"", "\"block\"", "\"throttle\"", "\"ops\":", "\"side\":\"REQUEST\"", "\"kind\":\"SET_HEADER\"",
      "\"match\":", "\"value\":", "\"request\":true", "\"response\":true", "\"enabled\":false", "\"id\":",
      "\"mode\":\"RESET\"", "\"status\":", "\"bytesPerSecond\":", "\"latencyMillis\":", "\"url\":", "\"path\":"})
  @FuzzTest(maxDuration = FuzzBudget.IN_BUILD)
  void anyJson(FuzzedDataProvider data) throws IOException {
    boolean rules = data.consumeBoolean();
    String json = data.consumeRemainingAsString();
    InterceptService service = InterceptService.create();
    InterceptList<?> list = rules ? service.rules() : service.breakpoints();
    try {
      list.replaceFromJson(json);
    } catch (IllegalArgumentException refused) {
      assertThat(refused.getMessage()).isNotBlank();
      assertThat(list.entries()).isEmpty();
      return;
    }
    String exported = list.toJson();
    InterceptService again = InterceptService.create();
    InterceptList<?> copy = rules ? again.rules() : again.breakpoints();
    copy.replaceFromJson(exported);
    assertThat(copy.entries()).isEqualTo(list.entries());
    assertThat(copy.toJson()).isEqualTo(exported);

    Path file = DIR.resolve(rules ? "rules.json" : "breakpoints.json");
    Files.deleteIfExists(file);
    Files.writeString(file, exported);
    InterceptService loaded = InterceptService.create();
    InterceptList<?> fromFile = rules ? loaded.rules() : loaded.breakpoints();
    assertThat(fromFile.persistTo(file)).isNull();
    assertThat(fromFile.entries()).isEqualTo(list.entries());
  }
}
