package dev.loupe.ui.shell;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javax.imageio.ImageIO;

/** Writes PNGs of scenes into {@code target/screenshots/} for review (works on headless Monocle). */
public final class Screenshots {
  public static final Path DIR = Path.of("target", "screenshots");

  private Screenshots() {}

  /** Snapshots {@code scene} on the FX thread and writes it as {@code DIR/name}; returns the file. */
  public static Path write(Scene scene, String name) throws Exception {
    CompletableFuture<WritableImage> shot = new CompletableFuture<>();
    Platform.runLater(() -> shot.complete(scene.snapshot(null)));
    WritableImage image = shot.get(10, TimeUnit.SECONDS);
    int w = (int) image.getWidth();
    int h = (int) image.getHeight();
    BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
    PixelReader pixels = image.getPixelReader();
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        out.setRGB(x, y, pixels.getArgb(x, y));
      }
    }
    try {
      Files.createDirectories(DIR);
      Path file = DIR.resolve(name);
      ImageIO.write(out, "png", file.toFile());
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
