package dev.loupe.ui.detail;

/**
 * Classic hex dump lines: offset, 16 bytes in two groups of eight, and the printable ASCII
 * ({@code 00000010  48 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0a 00 ff  |Hello, world!...|}).
 */
public final class HexDump {
  private static final char[] HEX = "0123456789abcdef".toCharArray();
  /** Characters per line, newline included. */
  static final int LINE = 8 + 2 + 16 * 3 + 1 + 2 + 16 + 1 + 1;

  private HexDump() {}

  /** The dump of {@code bytes[0, length)}, one line per 16 bytes, each line ending in a newline. */
  public static String format(byte[] bytes, int length) {
    int len = Math.min(length, bytes.length);
    StringBuilder sb = new StringBuilder((len / 16 + 1) * LINE);
    for (int row = 0; row < len; row += 16) {
      appendHex(sb, row, 8);
      sb.append("  ");
      for (int i = 0; i < 16; i++) {
        if (i == 8) {
          sb.append(' ');
        }
        if (row + i < len) {
          int b = bytes[row + i] & 0xFF;
          sb.append(HEX[b >> 4]).append(HEX[b & 0xF]).append(' ');
        } else {
          sb.append("   ");
        }
      }
      sb.append(" |");
      for (int i = 0; i < 16 && row + i < len; i++) {
        int b = bytes[row + i] & 0xFF;
        sb.append(b >= 0x20 && b < 0x7F ? (char) b : '.');
      }
      sb.append("|\n");
    }
    return sb.toString();
  }

  public static String format(byte[] bytes) {
    return format(bytes, bytes.length);
  }

  private static void appendHex(StringBuilder sb, long value, int digits) {
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
      sb.append(HEX[(int) (value >> shift) & 0xF]);
    }
  }
}
