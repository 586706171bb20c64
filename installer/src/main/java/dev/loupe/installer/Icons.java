package dev.loupe.installer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Renders Loupe's icon from its SVG source ({@code installer/icons/loupe.svg}) into the sizes each
 * desktop wants: PNGs (Linux menus, jpackage on Linux), a Windows {@code .ico} and a macOS
 * {@code .icns}. The SVG is rasterised by {@code rsvg-convert} (Debian/Ubuntu: librsvg2-bin; macOS:
 * {@code brew install librsvg}); the ICO and ICNS containers are written here, holding PNG images
 * (supported since Windows Vista and Mac OS X 10.7), so no other tool is needed.
 *
 * <p>Stateless.
 */
public final class Icons {
  /** PNG sizes rendered (pixels, square). */
  static final List<Integer> SIZES = List.of(16, 24, 32, 48, 64, 128, 256, 512, 1024);
  static final List<Integer> ICO_SIZES = List.of(16, 24, 32, 48, 64, 128, 256);
  /** ICNS element types holding PNG data, by pixel size (the @2x types reuse the larger renderings). */
  static final Map<String, Integer> ICNS_TYPES = icnsTypes();

  private Icons() {}

  private static Map<String, Integer> icnsTypes() {
    Map<String, Integer> m = new LinkedHashMap<>();
    m.put("icp4", 16);
    m.put("ic11", 32); // 16@2x
    m.put("icp5", 32);
    m.put("ic12", 64); // 32@2x
    m.put("ic07", 128);
    m.put("ic13", 256); // 128@2x
    m.put("ic08", 256);
    m.put("ic14", 512); // 256@2x
    m.put("ic09", 512);
    m.put("ic10", 1024); // 512@2x
    return m;
  }

  /** A file name for the PNG of one size. */
  static String pngName(int size) {
    return "loupe-" + size + ".png";
  }

  /**
   * Renders every size of {@code svg} into {@code outDir} and writes {@code loupe.ico} and
   * {@code loupe.icns} there.
   */
  public static void generate(Path svg, Path outDir) throws IOException, InterruptedException {
    Files.createDirectories(outDir);
    if (upToDate(svg, outDir)) { // e.g. rendered on another machine (the Windows CI job has no rsvg-convert)
      System.out.println("icons in " + outDir + " are newer than " + svg + ": kept");
      return;
    }
    Map<Integer, byte[]> pngs = new LinkedHashMap<>();
    for (int size : SIZES) {
      Path png = outDir.resolve(pngName(size));
      Tools.run(List.of("rsvg-convert", "--width", Integer.toString(size), "--height", Integer.toString(size),
          "--keep-aspect-ratio", "--output", png.toString(), svg.toString()), 60, TimeUnit.SECONDS,
          "rsvg-convert renders the icon: apt-get install librsvg2-bin (Debian/Ubuntu), brew install librsvg (macOS)");
      pngs.put(size, Files.readAllBytes(png));
    }
    Files.write(outDir.resolve("loupe.ico"), ico(ICO_SIZES.stream().map(pngs::get).toList(), ICO_SIZES));
    Map<String, byte[]> icns = new LinkedHashMap<>();
    ICNS_TYPES.forEach((type, size) -> icns.put(type, pngs.get(size)));
    Files.write(outDir.resolve("loupe.icns"), icns(icns));
  }

  private static boolean upToDate(Path svg, Path outDir) throws IOException {
    java.nio.file.attribute.FileTime source = Files.getLastModifiedTime(svg);
    List<Path> outputs = new java.util.ArrayList<>(List.of(outDir.resolve("loupe.ico"), outDir.resolve("loupe.icns")));
    SIZES.forEach(size -> outputs.add(outDir.resolve(pngName(size))));
    for (Path out : outputs) {
      if (!Files.exists(out) || Files.getLastModifiedTime(out).compareTo(source) < 0) {
        return false;
      }
    }
    return true;
  }

  /** A Windows icon file holding {@code pngs} (each square, of the matching size). */
  static byte[] ico(List<byte[]> pngs, List<Integer> sizes) {
    int count = pngs.size();
    int offset = 6 + 16 * count;
    ByteBuffer dir = ByteBuffer.allocate(offset).order(ByteOrder.LITTLE_ENDIAN);
    dir.putShort((short) 0).putShort((short) 1).putShort((short) count);
    for (int i = 0; i < count; i++) {
      int size = sizes.get(i);
      byte[] png = pngs.get(i);
      dir.put((byte) (size >= 256 ? 0 : size)).put((byte) (size >= 256 ? 0 : size)); // 0 means 256
      dir.put((byte) 0).put((byte) 0); // no palette, reserved
      dir.putShort((short) 1).putShort((short) 32); // colour planes, bits per pixel
      dir.putInt(png.length).putInt(offset);
      offset += png.length;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(dir.array());
    pngs.forEach(out::writeBytes);
    return out.toByteArray();
  }

  /** A macOS icon file: {@code icns}, then one (type, length, PNG) element per entry, all big-endian. */
  static byte[] icns(Map<String, byte[]> elements) {
    int total = 8 + elements.values().stream().mapToInt(b -> 8 + b.length).sum();
    ByteBuffer b = ByteBuffer.allocate(total).order(ByteOrder.BIG_ENDIAN);
    b.put("icns".getBytes(StandardCharsets.US_ASCII)).putInt(total);
    elements.forEach((type, png) -> b.put(type.getBytes(StandardCharsets.US_ASCII)).putInt(8 + png.length).put(png));
    return b.array();
  }
}
