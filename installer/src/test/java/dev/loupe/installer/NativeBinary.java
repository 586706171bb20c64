package dev.loupe.installer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads the OS and CPU a native library was built for from its header: ELF (Linux), Mach-O (macOS, thin
 * or universal) or PE (Windows). Tests use it to prove a jar's natives are the right platform's, not just
 * the right names. Stateless.
 */
final class NativeBinary {
  private NativeBinary() {}

  /** The platform {@code bytes} runs on, or null when the header names none of Loupe's five. */
  static Platform platformOf(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    if (bytes.length > 20 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F') {
      int machine = b.order(ByteOrder.LITTLE_ENDIAN).getShort(18) & 0xffff;
      return machine == 62 ? Platform.LINUX_X64 : machine == 183 ? Platform.LINUX_AARCH64 : null;
    }
    int magic = b.order(ByteOrder.BIG_ENDIAN).getInt(0);
    if (magic == 0xcffaedfe) { // MH_MAGIC_64, little-endian file
      return macCpu(b.order(ByteOrder.LITTLE_ENDIAN).getInt(4));
    }
    if (magic == 0xcafebabe && bytes.length > 8) { // universal ("fat") Mach-O: one platform only if one slice
      int slices = b.order(ByteOrder.BIG_ENDIAN).getInt(4);
      return slices == 1 ? macCpu(b.getInt(8)) : null;
    }
    if (bytes.length > 0x40 && bytes[0] == 'M' && bytes[1] == 'Z') {
      int pe = b.order(ByteOrder.LITTLE_ENDIAN).getInt(0x3c);
      if (pe + 6 < bytes.length && b.getInt(pe) == 0x00004550) { // "PE\0\0"
        int machine = b.getShort(pe + 4) & 0xffff;
        return machine == 0x8664 ? Platform.WIN_X64 : null;
      }
    }
    return null;
  }

  private static Platform macCpu(int cpuType) {
    return cpuType == 0x01000007 ? Platform.MAC_X64 : cpuType == 0x0100000c ? Platform.MAC_AARCH64 : null;
  }
}
