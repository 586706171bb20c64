package dev.loupe.engine.flow.har;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loupe.engine.flow.Flow;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link HarWriter#writeAtomically}: the target holds the old file or the whole new one, never a part. */
@Timeout(60)
class HarWriteAtomicallyTest {
  @TempDir Path dir;

  @Test
  void createsTheFileWithTheSameBytesAsWrite() throws IOException {
    List<Flow> flows = flows();
    Path file = dir.resolve("session.har");
    HarWriter.writeAtomically(flows, file);

    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    HarWriter.write(flows, expected);
    assertThat(Files.readAllBytes(file)).isEqualTo(expected.toByteArray());
    assertThat(listing()).containsExactly("session.har");
  }

  @Test
  void replacesAnExistingFile() throws IOException {
    Path file = dir.resolve("session.har");
    Files.writeString(file, "old content");
    HarWriter.writeAtomically(flows(), file);
    JsonNode har = new ObjectMapper().readTree(file.toFile());
    assertThat(har.get("log").get("entries").size()).isEqualTo(flows().size());
    assertThat(listing()).containsExactly("session.har");
  }

  @Test
  void failureHalfwayLeavesTheOldFileAndNoTemporaryFile() throws IOException {
    Path file = dir.resolve("session.har");
    Files.writeString(file, "old content");
    List<Flow> flows = flows();
    Iterable<Flow> failsHalfway = () -> new Iterator<>() {
      private int i;

      @Override
      public boolean hasNext() {
        return true;
      }

      @Override
      public Flow next() {
        if (i == flows.size() / 2) {
          throw new UncheckedIOException(new IOException("store went away"));
        }
        return flows.get(i++);
      }
    };

    assertThatThrownBy(() -> HarWriter.writeAtomically(failsHalfway, file))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("store went away");
    assertThat(Files.readString(file, StandardCharsets.UTF_8)).isEqualTo("old content");
    assertThat(listing()).containsExactly("session.har");
  }

  @Test
  void failureWithNoPreviousFileLeavesNothing() throws IOException {
    Path file = dir.resolve("new.har");
    Iterable<Flow> broken = () -> {
      throw new IllegalStateException("no flows for you");
    };
    assertThatThrownBy(() -> HarWriter.writeAtomically(broken, file)).isInstanceOf(IllegalStateException.class);
    assertThat(listing()).isEmpty();
  }

  @Test
  void missingDirectoryIsAnIOException() {
    Path file = dir.resolve("no/such/dir/x.har");
    assertThatThrownBy(() -> HarWriter.writeAtomically(flows(), file)).isInstanceOf(IOException.class);
  }

  private List<Flow> flows() {
    return new HarFixtures(dir.resolve("spill")).small().stream().map(HarFixtures.Case::flow).toList();
  }

  private List<String> listing() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).filter(n -> !n.equals("spill")).sorted().toList();
    }
  }
}
