package dev.loupe.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** When the window switches to software rendering, and the environment call it needs. */
@Timeout(30)
class SoftwareRenderingTest {
  @Test
  void onlyOnLinuxWithoutADrmDeviceAndNoChoiceMade(@TempDir Path dir) throws Exception {
    Path dri = dir.resolve("dri");
    assertThat(SoftwareRendering.wanted("Linux", Map.of(), null, dri)).isTrue(); // no /dev/dri
    Files.createDirectories(dri);
    assertThat(SoftwareRendering.wanted("Linux", Map.of(), null, dri)).isTrue(); // empty
    Files.createFile(dri.resolve("by-path"));
    assertThat(SoftwareRendering.wanted("Linux", Map.of(), null, dri)).isTrue();
    Files.createFile(dri.resolve("renderD128"));
    assertThat(SoftwareRendering.wanted("Linux", Map.of(), null, dri)).isFalse();
    Files.delete(dri.resolve("renderD128"));
    Files.createFile(dri.resolve("card0"));
    assertThat(SoftwareRendering.wanted("Linux", Map.of(), null, dri)).isFalse();
    Files.delete(dri.resolve("card0"));

    assertThat(SoftwareRendering.wanted("Linux", Map.of(), "es2", dri)).isFalse(); // -Dprism.order given
    assertThat(SoftwareRendering.wanted("Linux", Map.of("GDK_GL", "always"), null, dri)).isFalse();
    assertThat(SoftwareRendering.wanted("Mac OS X", Map.of(), null, dri)).isFalse();
    assertThat(SoftwareRendering.wanted("Windows 11", Map.of(), null, dri)).isFalse();
  }

  @Test
  void theSoftwarePipelineWithoutRegionCacheUnlessChosen() {
    java.util.Properties p = new java.util.Properties();
    SoftwareRendering.useSoftwarePipeline(p);
    assertThat(p).containsEntry("prism.order", "sw").containsEntry("prism.disableRegionCaching", "true");
    java.util.Properties chosen = new java.util.Properties();
    chosen.setProperty("prism.disableRegionCaching", "false");
    SoftwareRendering.useSoftwarePipeline(chosen);
    assertThat(chosen).containsEntry("prism.order", "sw").containsEntry("prism.disableRegionCaching", "false");
  }

  @Test
  void setenvWorksFromJdk22() {
    // JDK 17-21 have no final foreign function API: the switch is then left off
    assertThat(SoftwareRendering.setenv("LOUPE_SOFTWARE_RENDERING_TEST", "1"))
        .isEqualTo(Runtime.version().feature() >= 22);
  }
}
