package dev.loupe.engine.internal.protocol.http1;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.DecoderResultProvider;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import java.util.List;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;

/**
 * The plain HTTP/1 message heads an HTTP/1 decoder of Loupe's reads itself instead of handing them
 * to Netty's {@code HttpObjectDecoder}: a head in a strict subset of the grammar, complete in the
 * buffer, whose decoding by Netty is known byte for byte, so the decoder can make the same objects
 * (the same {@code createMessage}, {@code splitHeaderName}, the same {@code headers.add} with its
 * validators, the same {@code HttpMessageDecoderResult}) without Netty's copies: a field value equal
 * to the one at the same position in the previous head on this connection is that previous
 * {@code String} (a keep-alive connection's {@code Host}, {@code User-Agent}, {@code Server},
 * {@code Content-Type}, … come once), the head is scanned where it lies (a direct buffer's head is
 * copied once into a reused array) and no per-line scratch copy or {@code getAll} list is made.
 *
 * <p>The subset, anything else left to Netty (which then fails or accepts it as before):
 * <ul>
 *   <li>a request line {@code METHOD SP target SP HTTP/1.x CRLF} (method of {@code A-Z}, target of
 *       visible ASCII) or a status line {@code HTTP/1.x SP [2-5]dd SP reason CRLF} (reason of
 *       printable ASCII, not starting or ending with a space);</li>
 *   <li>fields {@code token ":" OWS value OWS CRLF}, value of printable ASCII and tabs (no obs-fold,
 *       no obs-text, no bare CR or LF anywhere), then {@code CRLF};</li>
 *   <li>no {@code Transfer-Encoding}, at most one {@code Content-Length} (decimal digits, no leading
 *       zero, at most 18 of them; a response must have one), no Hixie-76 WebSocket key fields;</li>
 *   <li>the line and the fields within the decoder's limits, counted as Netty counts them (bytes
 *       without the line ends).</li>
 * </ul>
 * Instances are per decoder (one connection, one event loop).
 */
final class FastHead {
  /** {@code HttpMessageDecoderResult(int, int)}, package-private in Netty; null: no fast path. */
  private static final MethodHandle DECODER_RESULT = decoderResultConstructor();
  private static final boolean[] TCHAR = new boolean[128];
  private static final int MAX_FIELDS = 64;
  /** {@link #scan(byte[], int, int)}: the head goes on past the bytes given. */
  private static final int MORE = -2;

  static {
    for (char c = '0'; c <= '9'; c++) {
      TCHAR[c] = true;
    }
    for (char c = 'a'; c <= 'z'; c++) {
      TCHAR[c] = true;
      TCHAR[c - 'a' + 'A'] = true;
    }
    for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
      TCHAR[c] = true;
    }
  }

  private final boolean request;
  private final int maxInitialLine;
  private final int maxHeaderSize;
  private final int maxChunkSize;
  private final HttpHeadersFactory trailersFactory;
  /** Netty's decoder is between messages: the next bytes start a message. */
  private boolean between = true;
  /** Netty's decoder failed a message or switched protocols: it alone reads from now on. */
  private boolean nettyOnly = DECODER_RESULT == null;
  /** Body bytes still to come of a message whose head was read here. */
  private long left;
  private byte[] scratch = new byte[0];

  /** The scanned head's bytes (the buffer's array, or the scratch copy of a direct buffer's head). */
  private byte[] bytes;
  /** Start and end of the three words of the first line, as offsets into {@link #bytes}. */
  private final int[] words = new int[6];
  private int initialLineLength;
  private int headerSize;
  private int fieldCount;
  /** Per field: name start, name end, value start, value end (offsets into {@link #bytes}). */
  private final int[] fields = new int[MAX_FIELDS * 4];
  /** Content-Length's value, -1 when the head has none. */
  private long contentLength;
  /** The previous heads' values by position, reused when the bytes are the same. */
  private final String[] values = new String[MAX_FIELDS];

  FastHead(boolean request, io.netty.handler.codec.http.HttpDecoderConfig config) {
    this.request = request;
    this.maxInitialLine = config.getMaxInitialLineLength();
    this.maxHeaderSize = config.getMaxHeaderSize();
    this.maxChunkSize = config.getMaxChunkSize();
    this.trailersFactory = config.getTrailersFactory();
  }

  /** Whether a head may be read here now: Netty's decoder is between messages and has not failed. */
  boolean mayRead() {
    return between && !nettyOnly;
  }

  /** Whether a body of a head read here is still coming: {@link #body} reads it. */
  boolean inBody() {
    return left > 0;
  }

  /**
   * After a head read here went out, framed as {@code HttpObjectDecoder} frames a message without
   * Transfer-Encoding whose head said nothing else: {@code alwaysEmpty} (a HEAD's response, 204,
   * 304, …) or a length of 0 (or none, in a request) end it at once, else {@link #contentLength}
   * bytes follow.
   */
  private void framed(HttpMessage msg, boolean alwaysEmpty, List<Object> out) {
    out.add(msg);
    if (alwaysEmpty || contentLength <= 0) {
      out.add(LastHttpContent.EMPTY_LAST_CONTENT);
    } else {
      left = contentLength;
      between = false;
    }
  }

  /** A Content-Length body as {@code HttpObjectDecoder} reads one: slices of at most maxChunkSize. */
  void body(ByteBuf buffer, List<Object> out) {
    int readable = buffer.readableBytes();
    if (readable == 0) {
      return;
    }
    int toRead = (int) Math.min(Math.min(readable, maxChunkSize), left);
    ByteBuf content = buffer.readRetainedSlice(toRead);
    left -= toRead;
    if (left == 0) {
      out.add(new DefaultLastHttpContent(content, trailersFactory));
      between = true;
    } else {
      out.add(new DefaultHttpContent(content));
    }
  }

  /**
   * After Netty's decoder added {@code out[before..]}: whether it is between messages now (it ended
   * one: it waits for the next in its state that skips leading line breaks), or failed or switched
   * protocols (a 101), after which it alone reads. A call that added nothing may have left it in
   * the middle of a first line (even without reading: it leaves the skipping state when it sees the
   * line start), so the rest of that message is its.
   */
  void track(List<Object> out, int before) {
    int n = out.size();
    if (n == before) {
      between = false;
      return;
    }
    for (int i = before; i < n; i++) {
      Object o = out.get(i);
      if (o instanceof DecoderResultProvider p && p.decoderResult().isFailure()
          || o instanceof HttpResponse r && r.status().code() == 101) {
        nettyOnly = true;
      }
    }
    between = out.get(n - 1) instanceof LastHttpContent;
  }

  /** Netty's decoder result for a head of these sizes. */
  private static DecoderResult decoderResult(int initialLineLength, int headerSize) {
    try {
      return (DecoderResult) DECODER_RESULT.invokeExact(initialLineLength, headerSize);
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Scans the head at {@code buf}'s reader index: its length in bytes (through the empty line) when
   * it is complete and in the subset, else -1. Reads nothing from {@code buf}.
   */
  private int scan(ByteBuf buf) {
    if (DECODER_RESULT == null) {
      return -1;
    }
    int readable = buf.readableBytes();
    if (readable < 16) {
      return -1;
    }
    int max = (int) Math.min(readable, (long) maxInitialLine + maxHeaderSize + 2L * MAX_FIELDS + 4);
    if (buf.hasArray()) {
      int r = scan(buf.array(), buf.arrayOffset() + buf.readerIndex(), max);
      return r < 0 ? -1 : r;
    }
    // a direct buffer: copy a first part (a head is usually short), all that may be a head if needed
    int len = Math.min(max, 1024);
    while (true) {
      if (scratch.length < len) {
        scratch = new byte[len];
      }
      buf.getBytes(buf.readerIndex(), scratch, 0, len);
      int r = scan(scratch, 0, len);
      if (r != MORE || len == max) {
        return r < 0 ? -1 : r;
      }
      len = max;
    }
  }

  /** {@link #scan(ByteBuf)} over {@code a[from, from + max)}: -1 not in the subset, {@link #MORE} incomplete. */
  private int scan(byte[] a, int from, int max) {
    int end = from + max;
    int p = request ? requestLine(a, from, end) : statusLine(a, from, end);
    if (p < 0) {
      return p;
    }
    initialLineLength = p - 2 - from;
    if (initialLineLength > maxInitialLine) {
      return -1;
    }
    int size = 0;
    int n = 0;
    long length = -1;
    while (true) {
      if (p + 1 >= end) {
        return MORE;
      }
      if (a[p] == '\r') {
        if (a[p + 1] != '\n') {
          return -1;
        }
        p += 2;
        break;
      }
      if (n == MAX_FIELDS) {
        return -1;
      }
      int nameStart = p;
      while (p < end && a[p] >= 0 && TCHAR[a[p]]) {
        p++;
      }
      if (p >= end) {
        return MORE;
      }
      if (p == nameStart || a[p] != ':') {
        return -1;
      }
      int nameEnd = p++;
      while (p < end && (a[p] == ' ' || a[p] == '\t')) {
        p++;
      }
      int valueStart = p;
      int valueEnd = p;
      while (true) {
        if (p >= end) {
          return MORE;
        }
        byte b = a[p];
        if (b == '\r') {
          break;
        }
        if (b == '\t' || b == ' ') {
          p++;
        } else if (b > ' ' && b < 0x7f) {
          valueEnd = ++p;
        } else {
          return -1;
        }
      }
      if (p + 1 >= end) {
        return MORE;
      }
      if (a[p + 1] != '\n') {
        return -1;
      }
      size += p - nameStart;
      if (size > maxHeaderSize) {
        return -1;
      }
      int kind = framing(a, nameStart, nameEnd - nameStart);
      if (kind == 2) {
        return -1;
      }
      if (kind == 1) {
        if (length >= 0) {
          return -1;
        }
        length = digits(a, valueStart, valueEnd);
        if (length < 0) {
          return -1;
        }
      }
      int f = n * 4;
      fields[f] = nameStart;
      fields[f + 1] = nameEnd;
      fields[f + 2] = valueStart;
      fields[f + 3] = valueEnd;
      n++;
      p += 2;
    }
    if (!request && length < 0) {
      return -1;
    }
    bytes = a;
    headerSize = size;
    fieldCount = n;
    contentLength = length;
    return p - from;
  }

  private int nameStart(int i) {
    return fields[i * 4];
  }

  private int nameLength(int i) {
    return fields[i * 4 + 1] - fields[i * 4];
  }

  /** Field {@code i}'s value: the previous head's {@code String} at {@code i} when equal, else a new one. */
  @SuppressWarnings("deprecation")
  private String value(int i) {
    int start = fields[i * 4 + 2];
    int len = fields[i * 4 + 3] - start;
    if (len == 0) {
      return "";
    }
    String prev = values[i];
    if (same(prev, bytes, start, len)) {
      return prev;
    }
    String s = new String(bytes, 0, start, len);
    values[i] = s;
    return s;
  }

  /** Whether {@code s} is the ASCII text of {@code a[start, start + len)} (a null {@code s} is not). */
  static boolean same(String s, byte[] a, int start, int len) {
    if (s == null || s.length() != len) {
      return false;
    }
    for (int j = 0; j < len; j++) {
      if (s.charAt(j) != a[start + j]) {
        return false;
      }
    }
    return true;
  }

  /**
   * The steps of Netty's {@code HttpObjectDecoder} that a head read here goes through, protected
   * there: the decoder using this {@code FastHead} lends them (its own overrides included).
   */
  interface Steps {
    /** {@code createMessage} of the three words, each split by the decoder's {@code split…WordInitialLine}. */
    HttpMessage message(byte[] a, int[] words) throws Exception;

    /** {@code splitHeaderName}. */
    AsciiString name(byte[] a, int start, int length);

    /** {@code isContentAlwaysEmpty} (the decoder's pairing of requests and responses). */
    boolean alwaysEmpty(HttpMessage msg);
  }

  /**
   * Reads a head in the subset as {@code HttpObjectDecoder} would: the words and names through the
   * decoder's {@code steps}, {@code createMessage}, the fields added in order (Netty's validators
   * run), the decoder result, {@code isContentAlwaysEmpty}, then the framing ({@link #framed}).
   * False, reading nothing, when the head is not in the subset or a validator refuses it: Netty's
   * decoder then reads it and fails it its way.
   */
  boolean read(ByteBuf buffer, List<Object> out, Steps steps) throws Exception {
    int length = scan(buffer);
    if (length < 0) {
      return false;
    }
    HttpMessage msg;
    try {
      msg = steps.message(bytes, words);
      HttpHeaders headers = msg.headers();
      for (int i = 0, n = fieldCount; i < n; i++) {
        headers.add(steps.name(bytes, nameStart(i), nameLength(i)), value(i));
      }
    } catch (RuntimeException e) {
      return false;
    }
    buffer.skipBytes(length);
    msg.setDecoderResult(decoderResult(initialLineLength, headerSize));
    boolean empty = steps.alwaysEmpty(msg);
    if (empty) {
      HttpUtil.setTransferEncodingChunked(msg, false);
    }
    framed(msg, empty, out);
    return true;
  }

  /** {@code METHOD SP target SP HTTP/1.x CRLF}: the offset after it, or -1. */
  private int requestLine(byte[] a, int from, int end) {
    int p = from;
    while (p < end && a[p] >= 'A' && a[p] <= 'Z') {
      p++;
    }
    if (p >= end) {
      return MORE;
    }
    if (p == from || a[p] != ' ') {
      return -1;
    }
    words[0] = from;
    words[1] = p++;
    int t = p;
    while (p < end && a[p] > ' ' && a[p] < 0x7f) {
      p++;
    }
    if (p >= end) {
      return MORE;
    }
    if (p == t || a[p] != ' ') {
      return -1;
    }
    words[2] = t;
    words[3] = p++;
    if (p + 10 > end) {
      return MORE;
    }
    if (!version(a, p) || a[p + 8] != '\r' || a[p + 9] != '\n') {
      return -1;
    }
    words[4] = p;
    words[5] = p + 8;
    return p + 10;
  }

  /** {@code HTTP/1.x SP [2-5]dd SP reason CRLF}: the offset after it, or -1. */
  private int statusLine(byte[] a, int from, int end) {
    if (from + 14 > end) {
      return MORE;
    }
    if (!version(a, from) || a[from + 8] != ' ') {
      return -1;
    }
    int c = from + 9;
    if (a[c] < '2' || a[c] > '5' || a[c + 1] < '0' || a[c + 1] > '9' || a[c + 2] < '0' || a[c + 2] > '9'
        || a[c + 3] != ' ') {
      return -1;
    }
    int r = c + 4;
    int p = r;
    while (p < end && a[p] >= ' ' && a[p] < 0x7f) {
      p++;
    }
    if (p + 1 >= end) {
      return MORE;
    }
    if (p == r || a[p] != '\r' || a[p + 1] != '\n' || a[r] == ' ' || a[p - 1] == ' ') {
      return -1;
    }
    words[0] = from;
    words[1] = from + 8;
    words[2] = c;
    words[3] = c + 3;
    words[4] = r;
    words[5] = p;
    return p + 2;
  }

  private static boolean version(byte[] a, int p) {
    return a[p] == 'H' && a[p + 1] == 'T' && a[p + 2] == 'T' && a[p + 3] == 'P' && a[p + 4] == '/'
        && a[p + 5] == '1' && a[p + 6] == '.' && (a[p + 7] == '1' || a[p + 7] == '0');
  }

  private static final byte[] CONTENT_LENGTH = bytes("content-length");
  private static final byte[] TRANSFER_ENCODING = bytes("transfer-encoding");
  private static final byte[] KEY1 = bytes("sec-websocket-key1");
  private static final byte[] KEY2 = bytes("sec-websocket-key2");
  private static final byte[] ORIGIN = bytes("sec-websocket-origin");
  private static final byte[] LOCATION = bytes("sec-websocket-location");

  private static byte[] bytes(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  /** 1: Content-Length; 2: a field that takes the head out of the subset; 0: any other. */
  private static int framing(byte[] a, int start, int len) {
    if (len == 14 && same(a, start, CONTENT_LENGTH)) {
      return 1;
    }
    if (len == 17 && same(a, start, TRANSFER_ENCODING)
        || len == 18 && (same(a, start, KEY1) || same(a, start, KEY2))
        || len == 20 && same(a, start, ORIGIN) || len == 22 && same(a, start, LOCATION)) {
      return 2;
    }
    return 0;
  }

  /** ASCII case-insensitive comparison with a lower-case name. */
  private static boolean same(byte[] a, int start, byte[] lower) {
    for (int i = 0; i < lower.length; i++) {
      int b = a[start + i];
      if (b >= 'A' && b <= 'Z') {
        b += 'a' - 'A';
      }
      if (b != lower[i]) {
        return false;
      }
    }
    return true;
  }

  /** A decimal of 1–18 digits without a leading zero (or {@code 0}), else -1. */
  private static long digits(byte[] a, int start, int end) {
    int len = end - start;
    if (len < 1 || len > 18 || len > 1 && a[start] == '0') {
      return -1;
    }
    long v = 0;
    for (int i = start; i < end; i++) {
      int d = a[i] - '0';
      if (d < 0 || d > 9) {
        return -1;
      }
      v = v * 10 + d;
    }
    return v;
  }

  private static MethodHandle decoderResultConstructor() {
    try {
      Class<?> c = Class.forName("io.netty.handler.codec.http.HttpMessageDecoderResult");
      Constructor<?> k = c.getDeclaredConstructor(int.class, int.class);
      k.setAccessible(true);
      return MethodHandles.lookup().unreflectConstructor(k)
          .asType(MethodType.methodType(DecoderResult.class, int.class, int.class));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
