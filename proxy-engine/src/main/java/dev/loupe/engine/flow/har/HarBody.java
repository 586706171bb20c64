package dev.loupe.engine.flow.har;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.ContentCodings;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * How one captured {@link Body} goes into a HAR {@code postData} or {@code content} object: decoded
 * or raw, as text or as base64.
 *
 * <p>{@link #plan} reads the body once (through the content decoder, if any) to learn the decoded
 * size and whether the bytes are valid text; {@link #writeText} reads it a second time and streams
 * it into the generator. Neither holds more than a few buffers of the body in memory, so a body
 * spilled to disk costs no heap. Not thread-safe; one instance serves one entry on the writer's
 * thread.
 *
 * <h3>Rules</h3>
 * <ul>
 *   <li>Content codings {@code gzip}, {@code x-gzip} and {@code deflate} (zlib or raw) are undone;
 *       {@code content.size} is then the decoded size. {@code br}, {@code zstd} and other codings
 *       cannot be undone with the JDK: the raw bytes are written in base64 and
 *       {@code _contentEncoding} names the coding still applied.</li>
 *   <li>Corrupt or truncated compressed data, or data that would decode to more than
 *       {@link #MAX_DECODED_SIZE}, never fails the export: the raw bytes are written instead.</li>
 *   <li>Textual media types ({@code text/*}, JSON, XML, JavaScript, forms, multipart, or any type
 *       with a {@code charset}) whose bytes decode strictly in their charset (UTF-8 by default) are
 *       written as {@code text}; everything else as base64 with {@code "encoding": "base64"}.</li>
 * </ul>
 */
final class HarBody {
  /** Bodies that would decode to more than this are written raw (decompression-bomb guard). */
  static final long MAX_DECODED_SIZE = 128L << 20;

  /** Form bodies up to this size are also split into {@code params}. */
  private static final int FORM_PARAMS_LIMIT = 1 << 20;

  private static final int CHUNK = 16 * 1024;

  private final Body body;
  private final String mime;
  /** Codings to undo when reading, as listed in Content-Encoding (applied first to last). */
  private final List<String> codings;
  private final long size;
  /** Non-null: write {@code text} in this charset; null: write base64. */
  private final Charset textCharset;
  /** The Content-Encoding still applied to the written bytes, or null. */
  private final String undecoded;

  private HarBody(Body body, String mime, List<String> codings, long size, Charset textCharset, String undecoded) {
    this.body = body;
    this.mime = mime;
    this.codings = codings;
    this.size = size;
    this.textCharset = textCharset;
    this.undecoded = undecoded;
  }

  /**
   * Reads {@code body} once and decides how to write it.
   *
   * @param contentType     the message's Content-Type, or null
   * @param contentEncoding the message's Content-Encoding, or null
   */
  static HarBody plan(Body body, String contentType, String contentEncoding) {
    String mime = mediaType(contentType);
    Charset textual = textCharset(contentType);
    List<String> codings = ContentCodings.parse(contentEncoding);
    if (body.capturedSize() == 0) {
      return new HarBody(body, mime, List.of(), body.size(), null, null);
    }
    if (!codings.isEmpty()) {
      if (ContentCodings.gzipOrDeflate(codings) && !body.truncated()) {
        try {
          Probe p = probe(body, codings, textual, false);
          return new HarBody(body, mime, codings, p.size, p.text ? textual : null, null);
        } catch (IOException | RuntimeException corrupt) {
          // fall through: raw bytes, still content-coded
        }
      }
      return new HarBody(body, mime, List.of(), body.size(), null, contentEncoding.trim());
    }
    boolean text = false;
    if (textual != null) {
      try {
        text = probe(body, List.of(), textual, body.truncated()).text;
      } catch (IOException | RuntimeException unreadable) {
        text = false;
      }
    }
    return new HarBody(body, mime, List.of(), body.size(), text ? textual : null, null);
  }

  /** HAR {@code content.size}: the decoded size when decoded, else the body size. */
  long size() {
    return size;
  }

  /** Whether a content coding was undone (then {@code compression} = size - bodySize). */
  boolean decoded() {
    return !codings.isEmpty();
  }

  /**
   * Writes {@code text} (and {@code encoding}), then {@code _contentEncoding} and {@code _truncated}
   * /{@code _capturedSize} as they apply, into the current object.
   */
  void writeText(JsonGenerator g) throws IOException {
    if (body.capturedSize() > 0) {
      InputStream in = null;
      try {
        in = open(body, codings);
      } catch (IOException gone) {
        // the spill file went away (store cleared while exporting): leave the text out
      }
      if (in != null) {
        try (InputStream stream = in) {
          g.writeFieldName("text");
          if (textCharset != null) {
            CharsetDecoder dec = textCharset.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
            Reader reader = new InputStreamReader(stream, dec);
            g.writeString(reader, -1);
          } else {
            g.writeBinary(stream, -1);
            g.writeStringField("encoding", "base64");
          }
        }
      }
    }
    if (undecoded != null) {
      g.writeStringField("_contentEncoding", undecoded);
    }
    if (body.truncated()) {
      g.writeBooleanField("_truncated", true);
      g.writeNumberField("_capturedSize", body.capturedSize());
    }
  }

  /** The {@code name=value} pairs of a complete, textual form body, or null. */
  List<HarUrls.Param> formParams() {
    if (!"application/x-www-form-urlencoded".equals(mime) || textCharset == null || body.truncated()
        || size > FORM_PARAMS_LIMIT) {
      return null;
    }
    try (InputStream in = open(body, codings)) {
      ByteArrayOutputStream buf = new ByteArrayOutputStream((int) size);
      in.transferTo(buf);
      return HarUrls.parseParams(buf.toString(textCharset), textCharset);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  // ---- classification --------------------------------------------------------------------------

  /** The lower-cased {@code type/subtype} of a Content-Type, or null. */
  static String mediaType(String contentType) {
    if (contentType == null) {
      return null;
    }
    int semi = contentType.indexOf(';');
    String m = (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    return m.isEmpty() ? null : m;
  }

  /** The charset to read a textual Content-Type in (UTF-8 unless declared), or null if not textual. */
  static Charset textCharset(String contentType) {
    String mime = mediaType(contentType);
    if (mime == null) {
      return null;
    }
    String declared = parameter(contentType, "charset");
    boolean textual = mime.startsWith("text/")
        || mime.contains("json")
        || mime.contains("xml")
        || mime.contains("javascript")
        || mime.contains("ecmascript")
        || mime.contains("yaml")
        || mime.equals("application/x-www-form-urlencoded")
        || mime.equals("application/graphql")
        || mime.startsWith("multipart/")
        || declared != null;
    if (!textual) {
      return null;
    }
    if (declared != null) {
      try {
        return Charset.forName(declared);
      } catch (IllegalArgumentException unknown) {
        // fall back to UTF-8; the strict decode still decides text vs base64
      }
    }
    return StandardCharsets.UTF_8;
  }

  private static String parameter(String contentType, String name) {
    String[] parts = contentType.split(";");
    for (int i = 1; i < parts.length; i++) {
      String p = parts[i].trim();
      int eq = p.indexOf('=');
      if (eq > 0 && p.substring(0, eq).trim().equalsIgnoreCase(name)) {
        String v = p.substring(eq + 1).trim();
        if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
          v = v.substring(1, v.length() - 1);
        }
        return v.isEmpty() ? null : v;
      }
    }
    return null;
  }

  // ---- reading ---------------------------------------------------------------------------------

  /** The body's bytes with {@code codings} undone (last applied is undone first). */
  private static InputStream open(Body body, List<String> codings) throws IOException {
    return ContentCodings.decoder(body.openStream(), codings, CHUNK);
  }

  private record Probe(long size, boolean text) {}

  /**
   * Reads the whole (decoded) body once: counts it, and checks it decodes strictly in
   * {@code charset} (if non-null). {@code allowCutTail}: a capture cut short may end inside a
   * multi-byte character, which is not a reason to call it binary.
   */
  private static Probe probe(Body body, List<String> codings, Charset charset, boolean allowCutTail)
      throws IOException {
    try (InputStream in = new LimitedStream(open(body, codings), MAX_DECODED_SIZE)) {
      CharsetDecoder dec = charset == null ? null : charset.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);
      boolean valid = dec != null;
      ByteBuffer bytes = ByteBuffer.allocate(CHUNK);
      CharBuffer chars = CharBuffer.allocate(CHUNK);
      long count = 0;
      while (true) {
        int n = in.read(bytes.array(), bytes.position(), bytes.remaining());
        boolean eof = n < 0;
        if (n > 0) {
          count += n;
          bytes.position(bytes.position() + n);
        }
        if (valid) {
          bytes.flip();
          CoderResult r;
          do {
            chars.clear();
            r = dec.decode(bytes, chars, eof);
          } while (r.isOverflow());
          if (r.isError()) {
            boolean cutTail = eof && allowCutTail && r.isMalformed()
                && bytes.position() + r.length() == bytes.limit() && r.length() < 4;
            valid = cutTail;
            eof = true; // nothing more to learn from the decoder; the size is counted below
          } else if (eof) {
            chars.clear();
            valid = !dec.flush(chars).isError();
          }
          bytes.compact();
          if (eof) {
            count += drain(in);
            return new Probe(count, valid);
          }
        } else {
          bytes.clear();
          if (eof) {
            return new Probe(count, false);
          }
        }
      }
    }
  }

  private static long drain(InputStream in) throws IOException {
    byte[] skip = new byte[CHUNK];
    long total = 0;
    int n;
    while ((n = in.read(skip)) >= 0) {
      total += n;
    }
    return total;
  }

  /** Fails once more than {@code limit} bytes were read. */
  private static final class LimitedStream extends FilterInputStream {
    private final long limit;
    private long read;

    LimitedStream(InputStream in, long limit) {
      super(in);
      this.limit = limit;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(int n) throws IOException {
      read += n;
      if (read > limit) {
        throw new IOException("decoded body exceeds " + limit + " bytes");
      }
    }
  }
}
