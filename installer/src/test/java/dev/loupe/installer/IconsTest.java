package dev.loupe.installer;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The icon set rendered from the real SVG, and the ICO/ICNS containers read back as Windows and macOS do. */
@Timeout(120)
class IconsTest {
  @Test
  void rendersEverySizeAndPacksThemIntoIcoAndIcns(@TempDir Path dir) throws Exception {
    Path svg = Path.of(System.getProperty("loupe.installer.dir", ".")).resolve("icons/loupe.svg");
    Icons.generate(svg, dir);
    Map<Integer, byte[]> pngs = new HashMap<>();
    for (int size : Icons.SIZES) {
      byte[] png = Files.readAllBytes(dir.resolve(Icons.pngName(size)));
      BufferedImage img = ImageIO.read(new ByteArrayInputStream(png));
      assertThat(img.getWidth()).isEqualTo(size);
      assertThat(img.getHeight()).isEqualTo(size);
      assertThat(img.getColorModel().hasAlpha()).isTrue();
      int corner = img.getRGB(0, 0) >>> 24;
      int centre = img.getRGB(size / 2, size / 2) >>> 24;
      assertThat(corner).as("transparent corner").isLessThan(16);
      assertThat(centre).as("opaque centre").isGreaterThan(200);
      pngs.put(size, png);
    }

    ByteBuffer ico = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("loupe.ico"))).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(ico.getShort(0)).isEqualTo((short) 0);
    assertThat(ico.getShort(2)).isEqualTo((short) 1);
    assertThat(ico.getShort(4)).isEqualTo((short) Icons.ICO_SIZES.size());
    for (int i = 0; i < Icons.ICO_SIZES.size(); i++) {
      int size = Icons.ICO_SIZES.get(i);
      int entry = 6 + 16 * i;
      assertThat(ico.get(entry) & 0xff).isEqualTo(size == 256 ? 0 : size);
      int length = ico.getInt(entry + 8);
      int offset = ico.getInt(entry + 12);
      assertThat(Arrays.copyOfRange(ico.array(), offset, offset + length)).isEqualTo(pngs.get(size));
    }

    ByteBuffer icns = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("loupe.icns"))).order(ByteOrder.BIG_ENDIAN);
    assertThat(new String(icns.array(), 0, 4, "US-ASCII")).isEqualTo("icns");
    assertThat(icns.getInt(4)).isEqualTo(icns.capacity());
    Map<String, Integer> seen = new HashMap<>();
    for (int at = 8; at < icns.capacity(); ) {
      String type = new String(icns.array(), at, 4, "US-ASCII");
      int length = icns.getInt(at + 4);
      byte[] png = Arrays.copyOfRange(icns.array(), at + 8, at + length);
      seen.put(type, ImageIO.read(new ByteArrayInputStream(png)).getWidth());
      at += length;
    }
    assertThat(seen).isEqualTo(Icons.ICNS_TYPES);
  }
}
