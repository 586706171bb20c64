package dev.loupe.e2e;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** HTTP/1.1 responses read by hand from a socket, to see exactly what went over the wire. */
final class RawHttp {
  private RawHttp() {}

  static void write(OutputStream out, String s) throws IOException {
    out.write(s.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  record Field(String name, String value) {}

  record Response(String version, int status, String reason, List<Field> headers, byte[] body, boolean chunked,
      List<Field> trailers, boolean closeDelimited) {
    String header(String name) {
      for (Field f : headers) {
        if (f.name().equalsIgnoreCase(name)) {
          return f.value();
        }
      }
      return null;
    }

    List<String> headerNames() {
      return headers.stream().map(f -> f.name().toLowerCase(Locale.ROOT)).toList();
    }

    String trailer(String name) {
      for (Field f : trailers) {
        if (f.name().equalsIgnoreCase(name)) {
          return f.value();
        }
      }
      return null;
    }

    String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /** Reads responses one after another from one connection. */
  static final class Reader {
    private final InputStream in;

    Reader(InputStream in) {
      this.in = in;
    }

    /** The next response to a request with {@code method}; 1xx responses are returned on their own. */
    Response read(String method) throws IOException {
      String statusLine = line();
      String[] parts = statusLine.split(" ", 3);
      if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
        throw new IOException("not a status line: " + statusLine);
      }
      int status = Integer.parseInt(parts[1]);
      String reason = parts.length > 2 ? parts[2] : "";
      List<Field> headers = fields();
      Response head = new Response(parts[0], status, reason, headers, new byte[0], false, List.of(), false);
      boolean noBody = method.equals("HEAD") || status / 100 == 1 || status == 204 || status == 304
          || (method.equals("CONNECT") && status / 100 == 2);
      if (noBody) {
        return head;
      }
      String te = head.header("transfer-encoding");
      if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
          String sizeLine = line();
          int semi = sizeLine.indexOf(';');
          int size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
          if (size == 0) {
            break;
          }
          body.write(exactly(size));
          String end = line();
          if (!end.isEmpty()) {
            throw new IOException("chunk not followed by CRLF: " + end);
          }
        }
        List<Field> trailers = fields();
        return new Response(parts[0], status, reason, headers, body.toByteArray(), true, trailers, false);
      }
      String cl = head.header("content-length");
      if (cl != null) {
        return new Response(parts[0], status, reason, headers, exactly(Integer.parseInt(cl.trim())), false,
            List.of(), false);
      }
      return new Response(parts[0], status, reason, headers, in.readAllBytes(), false, List.of(), true);
    }

    /** Reads past 1xx responses (collected in {@code interim}) to the final response. */
    Response readFinal(String method, List<Response> interim) throws IOException {
      while (true) {
        Response r = read(method);
        if (r.status() / 100 != 1) {
          return r;
        }
        interim.add(r);
      }
    }

    boolean atEof() throws IOException {
      return in.read() == -1;
    }

    byte[] exactly(int n) throws IOException {
      byte[] b = in.readNBytes(n);
      if (b.length != n) {
        throw new EOFException("expected " + n + " bytes, got " + b.length);
      }
      return b;
    }

    private List<Field> fields() throws IOException {
      List<Field> out = new ArrayList<>();
      String l;
      while (!(l = line()).isEmpty()) {
        int colon = l.indexOf(':');
        if (colon <= 0) {
          throw new IOException("bad header line: " + l);
        }
        out.add(new Field(l.substring(0, colon).trim(), l.substring(colon + 1).trim()));
      }
      return out;
    }

    /** One CRLF-terminated line; a bare CR or LF is an error. */
    String line() throws IOException {
      StringBuilder sb = new StringBuilder();
      while (true) {
        int c = in.read();
        if (c < 0) {
          throw new EOFException("connection closed mid-line after: " + sb);
        }
        if (c == '\r') {
          int n = in.read();
          if (n != '\n') {
            throw new IOException("CR not followed by LF after: " + sb);
          }
          return sb.toString();
        }
        if (c == '\n') {
          throw new IOException("bare LF after: " + sb);
        }
        sb.append((char) c);
      }
    }
  }
}
