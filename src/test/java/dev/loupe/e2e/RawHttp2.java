package dev.loupe.e2e;

import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestPki;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * An HTTP/2 client driven frame by frame, for abuse tests: CONNECT through the proxy, TLS with
 * ALPN {@code h2} (trusting Loupe's CA), then whatever frames the test writes, valid or not
 * (<a href="https://datatracker.ietf.org/doc/html/rfc9113">RFC 9113</a>). Header blocks are
 * hand-encoded ({@link Hpack}) so a test controls every byte; the server's header blocks are
 * decoded with Netty's HPACK decoder.
 *
 * <p>Threads: the test thread writes ({@link #frame} and friends are synchronized); after {@link
 * #startReading()} one daemon thread reads frames into a queue. PING and SETTINGS acknowledgements
 * are only counted, not queued, so a flood does not fill the test's heap.
 */
final class RawHttp2 implements AutoCloseable {
  static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  static final int DATA = 0x0;
  static final int HEADERS = 0x1;
  static final int RST_STREAM = 0x3;
  static final int SETTINGS = 0x4;
  static final int PING = 0x6;
  static final int GOAWAY = 0x7;
  static final int WINDOW_UPDATE = 0x8;
  static final int CONTINUATION = 0x9;

  static final int END_STREAM = 0x1;
  static final int ACK = 0x1;
  static final int END_HEADERS = 0x4;

  static final int NO_ERROR = 0x0;
  static final int PROTOCOL_ERROR = 0x1;
  static final int FLOW_CONTROL_ERROR = 0x3;
  static final int REFUSED_STREAM = 0x7;
  static final int CANCEL = 0x8;
  static final int ENHANCE_YOUR_CALM = 0xb;

  static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
  static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
  static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

  /** A frame as read; {@code headers} is the decoded block of a HEADERS frame with END_HEADERS. */
  record Frame(int type, int flags, int streamId, byte[] payload, Http2Headers headers) {
    boolean has(int flag) {
      return (flags & flag) != 0;
    }

    /** RST_STREAM's or GOAWAY's error code. */
    int errorCode() {
      ByteBuffer b = ByteBuffer.wrap(payload);
      return type == GOAWAY ? b.getInt(4) : b.getInt(0);
    }

    /** GOAWAY's last stream id. */
    int lastStreamId() {
      return ByteBuffer.wrap(payload).getInt(0) & 0x7fff_ffff;
    }

    /** GOAWAY's debug data. */
    String debugData() {
      return new String(payload, 8, payload.length - 8, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      String name = switch (type) {
        case DATA -> "DATA";
        case HEADERS -> "HEADERS";
        case RST_STREAM -> "RST_STREAM";
        case SETTINGS -> "SETTINGS";
        case PING -> "PING";
        case GOAWAY -> "GOAWAY";
        case WINDOW_UPDATE -> "WINDOW_UPDATE";
        default -> "type 0x" + Integer.toHexString(type);
      };
      String detail = type == GOAWAY ? " last=" + lastStreamId() + " error=0x" + Integer.toHexString(errorCode())
          + " \"" + debugData() + "\""
          : type == RST_STREAM ? " error=0x" + Integer.toHexString(errorCode())
          : type == HEADERS && headers != null ? " " + headers
          : " " + payload.length + " bytes";
      return name + "(stream " + streamId + ", flags 0x" + Integer.toHexString(flags) + ")" + detail;
    }
  }

  /**
   * What the server did until the connection ended: the first GOAWAY (or null), how the
   * connection ended, and the frames seen on the way (acknowledgements only counted).
   */
  record Outcome(Frame goAway, String end, List<Frame> frames, long pingAcks, long settingsAcks) {
    List<Frame> ofType(int type) {
      return frames.stream().filter(f -> f.type() == type).toList();
    }

    @Override
    public String toString() {
      return "goAway=" + goAway + ", end=" + end + ", pingAcks=" + pingAcks + ", settingsAcks=" + settingsAcks
          + ", frames=" + (frames.size() > 20 ? frames.subList(0, 20) + "..." : frames);
    }
  }

  private static final Frame END = new Frame(-1, 0, 0, new byte[0], null);

  private final Socket plain;
  private final SSLSocket tls;
  private final DataInputStream in;
  private final OutputStream out;
  private final Map<Integer, Long> serverSettings = new HashMap<>();
  private final BlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
  private final AtomicLong pingAcks = new AtomicLong();
  private final AtomicLong settingsAcks = new AtomicLong();
  /** Decoder state follows the server's header blocks in order; reader-thread confined. */
  private final DefaultHttp2HeadersDecoder hpackDecoder = new DefaultHttp2HeadersDecoder(false, 1 << 20);
  private long bytesWritten;
  private volatile boolean goAwaySeen;
  private volatile boolean ended;
  private volatile String endReason;
  private Thread reader;

  /** This client's port: the proxy logs it as the remote address of the connection. */
  int localPort() {
    return plain.getLocalPort();
  }

  private RawHttp2(Socket plain, SSLSocket tls) throws IOException {
    this.plain = plain;
    this.tls = tls;
    this.in = new DataInputStream(tls.getInputStream());
    this.out = new BufferedOutputStream(tls.getOutputStream(), 64 * 1024);
  }

  /**
   * CONNECT {@code host:port} through the proxy, TLS (SNI {@code host}, ALPN h2 only), then the
   * client preface and an empty SETTINGS; reads up to the server's SETTINGS and acknowledges it.
   * {@code receiveBuffer} (bytes, 0 for the default) is set before connecting, so a test that does
   * not read makes the server's writes back up sooner.
   */
  static RawHttp2 open(ProxyFixture proxy, String host, int port, int receiveBuffer) throws IOException {
    Socket plain = new Socket();
    if (receiveBuffer > 0) {
      plain.setReceiveBufferSize(receiveBuffer);
    }
    plain.connect(proxy.address(), 10_000);
    plain.setSoTimeout(20_000);
    String authority = host + ":" + port;
    OutputStream po = plain.getOutputStream();
    po.write(("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    po.flush();
    String head = readHead(plain.getInputStream());
    if (!head.startsWith("HTTP/1.1 200")) {
      plain.close();
      throw new IOException("CONNECT refused: " + head);
    }
    SSLSocket tls = (SSLSocket) TestPki.shared().clientTrustingLoupe().getSocketFactory()
        .createSocket(plain, host, port, true);
    SSLParameters p = tls.getSSLParameters();
    p.setServerNames(List.of(new SNIHostName(host)));
    p.setApplicationProtocols(new String[] {"h2"});
    p.setEndpointIdentificationAlgorithm("HTTPS");
    tls.setSSLParameters(p);
    tls.startHandshake();
    if (!"h2".equals(tls.getApplicationProtocol())) {
      tls.close();
      throw new IOException("ALPN chose " + tls.getApplicationProtocol() + ", not h2");
    }
    RawHttp2 c = new RawHttp2(plain, tls);
    c.out.write(PREFACE);
    c.frame(SETTINGS, 0, 0, new byte[0]);
    c.flush();
    c.awaitServerSettings();
    return c;
  }

  /** The CONNECT response head, read byte by byte so nothing of the TLS stream is consumed. */
  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int state = 0;
    while (state < 4) {
      int c = in.read();
      if (c < 0) {
        throw new EOFException("proxy closed during CONNECT: " + b);
      }
      b.write(c);
      state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1
          : c == '\r' ? 1 : 0;
    }
    return b.toString(StandardCharsets.ISO_8859_1);
  }

  private void awaitServerSettings() throws IOException {
    while (true) {
      Frame f = readFrame();
      if (f == null) {
        throw new EOFException("connection closed before the server's SETTINGS");
      }
      if (f.type() == SETTINGS && !f.has(ACK)) {
        ByteBuffer b = ByteBuffer.wrap(f.payload());
        while (b.remaining() >= 6) {
          serverSettings.put(b.getShort() & 0xffff, b.getInt() & 0xffff_ffffL);
        }
        frame(SETTINGS, ACK, 0, new byte[0]);
        flush();
        return;
      }
      accept(f);
    }
  }

  /** A setting the server advertised in its first SETTINGS frame (null if absent: the RFC default). */
  Long serverSetting(int id) {
    return serverSettings.get(id);
  }

  // ---- writing -------------------------------------------------------------------------------

  /** Buffers one frame: 9-byte header (length, type, flags, stream id) and the payload. */
  synchronized void frame(int type, int flags, int streamId, byte[] payload) throws IOException {
    int n = payload.length;
    out.write(new byte[] {(byte) (n >>> 16), (byte) (n >>> 8), (byte) n, (byte) type, (byte) flags,
        (byte) (streamId >>> 24 & 0x7f), (byte) (streamId >>> 16), (byte) (streamId >>> 8), (byte) streamId});
    out.write(payload);
    bytesWritten += 9 + n;
  }

  synchronized void flush() throws IOException {
    out.flush();
  }

  /** Application bytes written so far (frames and preface not counted). */
  synchronized long bytesWritten() {
    return bytesWritten;
  }

  void headers(int streamId, int flags, byte[] block) throws IOException {
    frame(HEADERS, flags, streamId, block);
  }

  void rstStream(int streamId, int errorCode) throws IOException {
    frame(RST_STREAM, 0, streamId, ByteBuffer.allocate(4).putInt(errorCode).array());
  }

  void ping(long data) throws IOException {
    frame(PING, 0, 0, ByteBuffer.allocate(8).putLong(data).array());
  }

  void settings(int... idValuePairs) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(idValuePairs.length / 2 * 6);
    for (int i = 0; i < idValuePairs.length; i += 2) {
      b.putShort((short) idValuePairs[i]).putInt(idValuePairs[i + 1]);
    }
    frame(SETTINGS, 0, 0, b.array());
  }

  void windowUpdate(int streamId, int increment) throws IOException {
    frame(WINDOW_UPDATE, 0, streamId, ByteBuffer.allocate(4).putInt(increment & 0x7fff_ffff).array());
  }

  // ---- reading -------------------------------------------------------------------------------

  /** Starts the reader thread (once): frames go to the queue, acknowledgements are counted. */
  synchronized void startReading() {
    if (reader != null) {
      return;
    }
    reader = new Thread(() -> {
      try {
        Frame f;
        while ((f = readFrame()) != null) {
          accept(f);
        }
        endReason = "EOF";
      } catch (IOException e) {
        endReason = e.getClass().getSimpleName() + ": " + e.getMessage();
      } finally {
        ended = true;
        frames.add(END);
      }
    }, "raw-h2-reader");
    reader.setDaemon(true);
    reader.start();
  }

  private void accept(Frame f) {
    if (f.type() == PING && f.has(ACK)) {
      pingAcks.incrementAndGet();
    } else if (f.type() == SETTINGS && f.has(ACK)) {
      settingsAcks.incrementAndGet();
    } else {
      if (f.type() == GOAWAY) {
        goAwaySeen = true;
      }
      frames.add(f);
    }
  }

  /** True once a GOAWAY was read or the connection ended (needs {@link #startReading()}). */
  boolean stopped() {
    return goAwaySeen || ended;
  }

  /** The next non-acknowledgement frame, or null once the connection ended. */
  Frame next() throws InterruptedException {
    // The poll timeout is a guard against a hung test, not a measurement.
    Frame f = frames.poll(30, TimeUnit.SECONDS);
    if (f == null) {
      throw new AssertionError("no frame from the proxy within 30 s");
    }
    if (f == END) {
      frames.add(END);
      return null;
    }
    return f;
  }

  /** Frames until the first one on {@code streamId} (or GOAWAY); null if the connection ended. */
  Frame nextOn(int streamId) throws InterruptedException {
    Frame f;
    while ((f = next()) != null) {
      if (f.streamId() == streamId || f.type() == GOAWAY) {
        return f;
      }
    }
    return null;
  }

  /** Reads until the connection ends; returns the first GOAWAY and everything else seen. */
  Outcome awaitEnd() throws InterruptedException {
    startReading();
    List<Frame> seen = new ArrayList<>();
    Frame goAway = null;
    Frame f;
    while ((f = next()) != null) {
      seen.add(f);
      if (f.type() == GOAWAY && goAway == null) {
        goAway = f;
      }
    }
    return new Outcome(goAway, endReason, seen, pingAcks.get(), settingsAcks.get());
  }

  private Frame readFrame() throws IOException {
    int b0 = in.read();
    if (b0 < 0) {
      return null;
    }
    int length = b0 << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
    int type = in.readUnsignedByte();
    int flags = in.readUnsignedByte();
    int streamId = in.readInt() & 0x7fff_ffff;
    byte[] payload = new byte[length];
    in.readFully(payload);
    Http2Headers headers = null;
    if (type == HEADERS && (flags & END_HEADERS) != 0) {
      headers = decode(streamId, flags, payload);
    }
    return new Frame(type, flags, streamId, payload, headers);
  }

  private Http2Headers decode(int streamId, int flags, byte[] payload) throws IOException {
    int from = 0;
    int to = payload.length;
    if ((flags & 0x8) != 0) { // PADDED
      to -= payload[0] & 0xff;
      from = 1;
    }
    if ((flags & 0x20) != 0) { // PRIORITY
      from += 5;
    }
    try {
      // A heap buffer wrapping the array: nothing pooled to release.
      return hpackDecoder.decodeHeaders(streamId, Unpooled.wrappedBuffer(payload, from, to - from));
    } catch (Http2Exception e) {
      throw new IOException("server header block on stream " + streamId + " does not decode", e);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      tls.close();
    } finally {
      plain.close();
    }
  }

  /**
   * Hand-rolled HPACK (<a href="https://datatracker.ietf.org/doc/html/rfc7541">RFC 7541</a>),
   * no Huffman: literal fields with or without indexing, and indexed fields.
   */
  static final class Hpack {
    /** Index of the first dynamic-table entry (the static table has 61). */
    static final int FIRST_DYNAMIC = 62;

    private final ByteArrayOutputStream b = new ByteArrayOutputStream();

    /** A GET request's pseudo-header fields, then nothing else. */
    static Hpack get(String authority, String path) {
      return new Hpack().literal(":method", "GET").literal(":scheme", "https").literal(":authority", authority)
          .literal(":path", path);
    }

    /** Literal field, new name, not added to the dynamic table (§6.2.2). */
    Hpack literal(String name, String value) {
      b.write(0x00);
      string(name);
      string(value);
      return this;
    }

    /** Literal field, new name, added to the dynamic table (§6.2.1). */
    Hpack literalIndexed(String name, String value) {
      b.write(0x40);
      string(name);
      string(value);
      return this;
    }

    /** Indexed field (§6.1). */
    Hpack indexed(int index) {
      integer(0x80, 7, index);
      return this;
    }

    /** {@code count} indexed references to the same entry. */
    Hpack indexed(int index, int count) {
      for (int i = 0; i < count; i++) {
        indexed(index);
      }
      return this;
    }

    int size() {
      return b.size();
    }

    byte[] bytes() {
      return b.toByteArray();
    }

    private void string(String s) {
      byte[] v = s.getBytes(StandardCharsets.ISO_8859_1);
      integer(0x00, 7, v.length);
      b.write(v, 0, v.length);
    }

    /** An integer with an N-bit prefix (§5.1); {@code mask} carries the representation's high bits. */
    private void integer(int mask, int prefixBits, int value) {
      int max = (1 << prefixBits) - 1;
      if (value < max) {
        b.write(mask | value);
        return;
      }
      b.write(mask | max);
      value -= max;
      while (value >= 0x80) {
        b.write(value & 0x7f | 0x80);
        value >>>= 7;
      }
      b.write(value);
    }
  }
}
