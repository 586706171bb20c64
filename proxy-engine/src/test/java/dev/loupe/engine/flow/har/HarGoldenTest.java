package dev.loupe.engine.flow.har;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Flow;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HAR for the small fixtures, compared with {@code src/test/resources/har/fixtures.har}.
 * Regenerate with {@code -Dgolden.update=true} and review the diff. Cases whose bytes come from
 * the platform's zlib (gzip, deflate) are left out: their compressed sizes may differ between
 * JDK builds.
 */
@Timeout(60)
class HarGoldenTest {
  private static final String GOLDEN = "har/fixtures.har";
  private static final Set<String> ZLIB_DEPENDENT = Set.of("gzip", "deflate", "corrupt-gzip");

  @TempDir Path spillDir;

  @Test
  void matchesTheGoldenFile() throws IOException {
    List<Flow> flows = new HarFixtures(spillDir).small().stream()
        .filter(c -> !ZLIB_DEPENDENT.contains(c.name()))
        .map(HarFixtures.Case::flow)
        .toList();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    HarWriter.write(flows, out);
    String actual = out.toString(StandardCharsets.UTF_8);

    if (Boolean.getBoolean("golden.update")) {
      Path file = Path.of("src/test/resources").resolve(GOLDEN);
      Files.createDirectories(file.getParent());
      Files.writeString(file, actual, StandardCharsets.UTF_8);
      return;
    }
    String expected;
    try (InputStream in = getClass().getResourceAsStream("/" + GOLDEN)) {
      assertThat(in).as(GOLDEN + " (run once with -Dgolden.update=true)").isNotNull();
      expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(actual).isEqualTo(expected);
  }
}
