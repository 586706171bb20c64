package dev.loupe.ui.connect;

import com.google.zxing.BarcodeFormat;
import com.google.zxing.EncodeHintType;
import com.google.zxing.WriterException;
import com.google.zxing.common.BitMatrix;
import com.google.zxing.qrcode.QRCodeWriter;
import com.google.zxing.qrcode.decoder.ErrorCorrectionLevel;
import java.util.Map;

/**
 * A QR code's modules for a text (ZXing), with the quiet zone: {@code true} is a dark module. The
 * view scales it to whole pixels per module, so a phone's camera reads it off the screen.
 */
public final class QrCode {
  private QrCode() {}

  /** The modules of {@code text} (error correction M, 4-module quiet zone), row by row. */
  public static boolean[][] modules(String text) {
    BitMatrix m;
    try {
      m = new QRCodeWriter().encode(text, BarcodeFormat.QR_CODE, 0, 0,
          Map.of(EncodeHintType.ERROR_CORRECTION, ErrorCorrectionLevel.M, EncodeHintType.MARGIN, 4,
              EncodeHintType.CHARACTER_SET, "UTF-8"));
    } catch (WriterException e) {
      throw new IllegalArgumentException("cannot encode a QR code: " + e.getMessage(), e);
    }
    boolean[][] out = new boolean[m.getHeight()][m.getWidth()];
    for (int y = 0; y < m.getHeight(); y++) {
      for (int x = 0; x < m.getWidth(); x++) {
        out[y][x] = m.get(x, y);
      }
    }
    return out;
  }
}
