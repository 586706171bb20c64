package dev.loupe.ui.flows;

import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/**
 * "Copy as cURL": a POSIX shell command (bash, zsh) that sends a captured request again, directly
 * to the origin: method, URL, the client's header fields (minus those curl derives itself), and
 * the body byte for byte — printable text up to {@value #INLINE_LIMIT} bytes in single quotes,
 * anything else (binary, NUL bytes, big bodies) piped in by the shell's {@code printf}, since a
 * shell string cannot hold NUL and one argument is limited to 128 KiB on Linux.
 * The protocol the client spoke is kept ({@code --http2}, {@code --http3}, {@code --http1.0}).
 */
public final class CurlCommand {
  /** Fields curl writes from the URL and body itself, and connection-level fields. */
  private static final Set<String> DERIVED = Set.of("content-length", "transfer-encoding", "connection",
      "keep-alive", "proxy-connection", "upgrade", "te", "http2-settings");

  /** Larger bodies are piped in rather than passed as one argument. */
  static final int INLINE_LIMIT = 64 * 1024;

  private CurlCommand() {}

  /** The command for {@code flow}'s request, or null when the flow has no request head yet. */
  public static String of(Flow flow) {
    RequestHead req = flow.request();
    if (req == null) {
      return null;
    }
    StringBuilder cmd = new StringBuilder("curl");
    String protocol = flow.clientProtocol() == null ? req.httpVersion() : flow.clientProtocol();
    switch (protocol) {
      case "HTTP/2" -> cmd.append(" --http2");
      case "HTTP/3" -> cmd.append(" --http3");
      case "HTTP/1.0" -> cmd.append(" --http1.0");
      default -> { }
    }
    Body body = flow.requestBody();
    boolean hasBody = body.size() > 0;
    if (req.method().equals("HEAD")) {
      cmd.append(" --head");
    } else if (!(req.method().equals("GET") && !hasBody) && !(req.method().equals("POST") && hasBody)) {
      cmd.append(" -X ").append(quote(req.method()));
    }
    cmd.append(' ').append(quote(req.url()));
    Headers headers = req.headers();
    for (Headers.Field h : headers.fields()) {
      String name = h.name().toLowerCase(Locale.ROOT);
      if (name.startsWith(":") || DERIVED.contains(name) || (name.equals("host") && h.value().equalsIgnoreCase(req.authority()))) {
        continue;
      }
      cmd.append(" \\\n  -H ").append(quote(h.name() + ": " + h.value()));
    }
    if (!headers.contains("user-agent")) {
      cmd.append(" \\\n  -H 'User-Agent:'"); // the client sent none: curl must not add its own
    }
    if (!headers.contains("accept")) {
      cmd.append(" \\\n  -H 'Accept:'");
    }
    if (hasBody) {
      if (body.truncated()) {
        return "# The request body was not captured in full (" + body.capturedSize() + " of " + body.size()
            + " bytes kept), so this command sends none.\n" + cmd;
      }
      byte[] bytes = body.bytes();
      String text = bytes.length <= INLINE_LIMIT && (bytes.length == 0 || bytes[0] != '@') ? printableUtf8(bytes) : null;
      if (text != null) {
        cmd.append(" \\\n  --data-binary ").append(quote(text));
      } else {
        cmd.insert(0, "printf " + printfFormat(bytes) + " | ");
        cmd.append(" \\\n  --data-binary @-");
      }
      if (!headers.contains("content-type")) {
        cmd.append(" \\\n  -H 'Content-Type:'"); // curl would add application/x-www-form-urlencoded
      }
    }
    return cmd.toString();
  }

  /** Single-quoted; a string with control characters is ANSI-C quoted ({@code $'\x01'}). */
  static String quote(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
        StringBuilder out = new StringBuilder("$'");
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
          int v = b & 0xff;
          if (v == '\'' || v == '\\') {
            out.append('\\').append((char) v);
          } else if (v >= 0x20 && v < 0x7f) {
            out.append((char) v);
          } else {
            out.append(String.format("\\x%02x", v));
          }
        }
        return out.append('\'').toString();
      }
    }
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /** A single-quoted printf format that prints exactly {@code bytes} (printf emits NUL for \x00). */
  static String printfFormat(byte[] bytes) {
    StringBuilder out = new StringBuilder(bytes.length * 3 + 2).append('\'');
    for (byte b : bytes) {
      int v = b & 0xff;
      if (v == '%') {
        out.append("%%");
      } else if (v == '\\') {
        out.append("\\\\");
      } else if (v == '\'') {
        out.append("\\x27");
      } else if (v >= 0x20 && v < 0x7f) {
        out.append((char) v);
      } else {
        out.append(String.format("\\x%02x", v)); // bash's printf reads at most two hex digits
      }
    }
    return out.append('\'').toString();
  }

  private static String printableUtf8(byte[] bytes) {
    String s;
    try {
      s = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f) {
        return null;
      }
    }
    return s;
  }
}
