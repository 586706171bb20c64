package dev.loupe.e2e;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 by hand over a plain socket, for tests that must send bytes no well-behaved client
 * would send, or see exactly what arrives (and when the peer closes).
 */
final class WireHttp {
  private WireHttp() {}

  /** A response head and the body bytes that arrived for it. */
  record Response(String statusLine, Map<String, List<String>> headers, byte[] body) {
    int status() {
      String[] parts = statusLine.split(" ", 3);
      return Integer.parseInt(parts[1]);
    }

    /** The reason phrase of the status line ("" when absent). */
    String reason() {
      String[] parts = statusLine.split(" ", 3);
      return parts.length > 2 ? parts[2] : "";
    }

    /** The first value of {@code name} (case-insensitive), or null. */
    String header(String name) {
      List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
      return v == null || v.isEmpty() ? null : v.get(0);
    }

    String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  static void send(Socket s, String raw) throws IOException {
    send(s, raw.getBytes(StandardCharsets.ISO_8859_1));
  }

  static void send(Socket s, byte[] raw) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write(raw);
    out.flush();
  }

  /**
   * Reads one response: the head, then exactly Content-Length body bytes (none when the header is
   * absent). Throws EOFException when the connection ends before the head does.
   */
  static Response readResponse(InputStream in) throws IOException {
    Response head = readHead(in);
    String cl = head.header("content-length");
    byte[] body = cl == null ? new byte[0] : in.readNBytes(Integer.parseInt(cl.trim()));
    return new Response(head.statusLine(), head.headers(), body);
  }

  /** Reads a response head (up to and including the blank line); the body is left unread. */
  static Response readHead(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    List<String> lines = new ArrayList<>();
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new EOFException("connection ended inside the response head; got " + lines + " + '"
            + line.toString(StandardCharsets.ISO_8859_1) + "'");
      }
      if (c == '\n') {
        String l = line.toString(StandardCharsets.ISO_8859_1);
        if (l.endsWith("\r")) {
          l = l.substring(0, l.length() - 1);
        }
        line.reset();
        if (l.isEmpty()) {
          break;
        }
        lines.add(l);
      } else {
        line.write(c);
      }
    }
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (String l : lines.subList(1, lines.size())) {
      int colon = l.indexOf(':');
      headers.computeIfAbsent(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
          .add(l.substring(colon + 1).trim());
    }
    return new Response(lines.get(0), headers, new byte[0]);
  }

  /** Everything until the peer closes (the socket's read timeout applies to each read). */
  static byte[] readToEnd(InputStream in) throws IOException {
    return in.readAllBytes();
  }

  /**
   * Whether the peer closed the connection: true when a read returns end-of-stream (or the
   * connection was reset), false when the read times out with the connection still open.
   */
  static boolean closedByPeer(Socket s) throws IOException {
    try {
      return s.getInputStream().read() < 0;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      // "Connection reset": closed too, abortively.
      return true;
    }
  }
}
