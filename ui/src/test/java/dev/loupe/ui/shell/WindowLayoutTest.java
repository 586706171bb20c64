package dev.loupe.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WindowLayoutTest {
  @TempDir Path confdir;

  @Test
  void roundTripsAndFallsBackToDefaults() throws Exception {
    assertThat(WindowLayout.load(confdir)).isEqualTo(WindowLayout.DEFAULT);
    WindowLayout l = new WindowLayout(40, 50, 1000, 700, true, 0.4,
        List.of(new WindowLayout.Column("col-host", 321, true), new WindowLayout.Column("col-tier", 50, false)));
    l.save(confdir);
    assertThat(WindowLayout.load(confdir)).isEqualTo(l);
    Files.writeString(confdir.resolve(WindowLayout.FILE), "not json");
    assertThat(WindowLayout.load(confdir)).isEqualTo(WindowLayout.DEFAULT);
  }
}
