package dev.loupe.e2e;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a {@code socket:[INODE]} descriptor of this process is (Linux): its protocol, addresses and
 * TCP state, read from {@code /proc/net/{tcp,tcp6,udp,udp6,unix}} — so a descriptor left open after
 * a test names the connection it belongs to (whose port: a proxy's, an origin's, a client's).
 */
final class OpenSockets {
  private static final String[] TCP_STATES = {"?", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1",
      "FIN_WAIT2", "TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING"};

  private OpenSockets() {}

  /** One of this process's sockets: {@code proto} tcp/tcp6/udp/udp6/unix; ports -1 for unix. */
  record Socket(String proto, int localPort, int remotePort, String state) {}

  /** This process's open sockets (from {@code /proc/self/fd}), described. */
  static List<Socket> mine() {
    Map<String, Socket> all = new HashMap<>();
    for (String proto : List.of("tcp", "tcp6", "udp", "udp6")) {
      for (String line : lines("/proc/net/" + proto)) {
        String[] f = line.trim().split("\\s+");
        if (f.length >= 10 && f[0].endsWith(":")) {
          String state = proto.startsWith("tcp") ? TCP_STATES[Math.min(Integer.parseInt(f[3], 16), 11)] : "";
          all.put(f[9], new Socket(proto, port(f[1]), port(f[2]), state));
        }
      }
    }
    List<Socket> out = new java.util.ArrayList<>();
    try (var s = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) s::iterator) {
        try {
          String t = Files.readSymbolicLink(fd).toString();
          if (t.startsWith("socket:[")) {
            out.add(all.getOrDefault(t.substring(8, t.length() - 1), new Socket("unix", -1, -1, "")));
          }
        } catch (IOException gone) {
          // closed while listing
        }
      }
    } catch (IOException e) {
      return List.of();
    }
    return out;
  }

  private static int port(String hexAddress) {
    return Integer.parseInt(hexAddress.substring(hexAddress.indexOf(':') + 1), 16);
  }

  /** Inode to description, e.g. {@code tcp 127.0.0.1:40000 -> 127.0.0.1:8080 ESTABLISHED}. */
  static Map<String, String> table() {
    Map<String, String> out = new HashMap<>();
    for (String proto : List.of("tcp", "tcp6", "udp", "udp6")) {
      for (String line : lines("/proc/net/" + proto)) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 10 || !f[0].endsWith(":")) {
          continue;
        }
        String state = proto.startsWith("tcp") ? " " + TCP_STATES[Math.min(Integer.parseInt(f[3], 16), 11)] : "";
        out.put(f[9], proto + " " + address(f[1]) + " -> " + address(f[2]) + state);
      }
    }
    for (String line : lines("/proc/net/unix")) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= 7 && f[0].endsWith(":")) {
        out.put(f[6], "unix" + (f.length > 7 ? " " + f[7] : ""));
      }
    }
    return out;
  }

  /** {@code target} ({@code socket:[123]}) with what it is, if known. */
  static String describe(String target, Map<String, String> table) {
    if (!target.startsWith("socket:[")) {
      return target;
    }
    String inode = target.substring("socket:[".length(), target.length() - 1);
    String what = table.get(inode);
    return what == null ? target : target + " " + what;
  }

  private static List<String> lines(String file) {
    try {
      return Files.readAllLines(Path.of(file));
    } catch (IOException e) {
      return List.of();
    }
  }

  /** {@code 0100007F:1F90} (little-endian words, as the kernel prints them) as {@code 127.0.0.1:8080}. */
  private static String address(String hex) {
    String[] p = hex.split(":");
    byte[] raw = new BigInteger(p[0], 16).toByteArray();
    int len = p[0].length() / 2;
    byte[] be = new byte[len];
    for (int i = 0; i < len; i++) {
      int src = raw.length - len + i;
      be[i] = src >= 0 ? raw[src] : 0;
    }
    byte[] addr = new byte[len];
    for (int w = 0; w < len / 4; w++) { // each 32-bit word is in host (little-endian) order
      for (int b = 0; b < 4; b++) {
        addr[w * 4 + b] = be[w * 4 + 3 - b];
      }
    }
    int port = Integer.parseInt(p[1], 16);
    try {
      String host = InetAddress.getByAddress(addr).getHostAddress();
      return (len == 16 ? "[" + host + "]" : host) + ":" + port;
    } catch (UnknownHostException e) {
      return hex;
    }
  }
}
