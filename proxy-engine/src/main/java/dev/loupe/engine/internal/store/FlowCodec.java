package dev.loupe.engine.internal.store;

import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.TlsInfo;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code detail} blob of a stored flow: what the {@code flow} table has no column for.
 *
 * <h3>Layout (format 1)</h3>
 * <pre>
 * u8 format (1)
 * str clientProtocol, serverProtocol           str = varint (UTF-8 length + 1, 0 = null) + bytes
 * zz clientStreamId, serverStreamId            zz = zig-zag varint
 * str clientQuicConnectionId, serverQuicConnectionId, http3Status
 * conn clientConnection, serverConnection      conn = u8 present, varint id, addr remote, addr local,
 *                                                     bool reused, tls
 *                                              addr = u8 present, str host, bytes ip (empty: unresolved), varint port
 *                                              tls  = u8 present, str sni, protocol, cipherSuite, alpn,
 *                                                     bool verified, varint n, n x bytes (SHA-256 of a
 *                                                     certificate in the certificate table)
 * req request, originalRequest                 req = u8 present, str method, scheme, host, varint port,
 *                                                    str target, httpVersion, headers
 * res response, originalResponse               res = u8 present, varint status, str reason, httpVersion, headers
 * varint n, n x res informational              headers = varint n, n x (str name, str value)
 * headers requestTrailers, responseTrailers
 * zz webSocketCloseCode, str webSocketCloseReason
 * varint mask of the non-zero timing readings, then the first as zz and each later one as zz
 *                                              (reading - first reading)
 * varint n, n x str notes
 * </pre>
 * Strings are UTF-8, so a string holding an unpaired surrogate (not valid text) would come back with
 * U+FFFD in its place; header values are ISO-8859-1 on the wire and never hold one.
 *
 * <p>Stateless apart from the caller's {@link BlobWriter}; thread-safe.
 */
final class FlowCodec {
  static final int FORMAT = 1;

  /** Stores a certificate once per session and gives its SHA-256, which the blob holds. */
  @FunctionalInterface
  interface CertificateSink {
    byte[] put(X509Certificate certificate);
  }

  /** The certificate of a SHA-256 the blob holds. */
  @FunctionalInterface
  interface CertificateSource {
    X509Certificate get(byte[] sha256);
  }

  private FlowCodec() {}

  static byte[] encode(Flow f, BlobWriter w, CertificateSink certs) {
    return encode(f, w, certs, null);
  }

  /**
   * {@link #encode(Flow, BlobWriter, CertificateSink)}, taking the connections' TLS facts and
   * addresses from {@code parts} when they were encoded before (same bytes) and keeping them there.
   */
  static byte[] encode(Flow f, BlobWriter w, CertificateSink certs, EncodedParts parts) {
    return write(f, w, certs, parts).toByteArray();
  }

  /** {@link #encode(Flow, BlobWriter, CertificateSink, EncodedParts)} into {@code w} (reset first), without the copy. */
  static BlobWriter write(Flow f, BlobWriter w, CertificateSink certs, EncodedParts parts) {
    w.reset().u8(FORMAT);
    w.string(f.clientProtocol()).string(f.serverProtocol());
    w.zigzag(f.clientStreamId()).zigzag(f.serverStreamId());
    w.string(f.clientQuicConnectionId()).string(f.serverQuicConnectionId()).string(f.http3Status());
    connection(w, f.clientConnection(), certs, parts);
    connection(w, f.serverConnection(), certs, parts);
    request(w, f.request());
    request(w, f.originalRequest());
    response(w, f.response());
    response(w, f.originalResponse());
    List<ResponseHead> informational = f.informationalResponses();
    w.varlong(informational.size());
    for (ResponseHead r : informational) {
      response(w, r);
    }
    headers(w, f.requestTrailers());
    headers(w, f.responseTrailers());
    w.zigzag(f.webSocketCloseCode()).string(f.webSocketCloseReason());
    timings(w, FlowBuilder.readings(f.timings()));
    List<String> notes = f.notes();
    w.varlong(notes.size());
    for (String n : notes) {
      w.string(n);
    }
    return w;
  }

  /** Reads {@code blob} into {@code b}. */
  static void decode(byte[] blob, FlowBuilder b, CertificateSource certs) {
    BlobReader r = new BlobReader(blob);
    int format = r.u8();
    if (format != FORMAT) {
      throw new BlobReader.CorruptBlobException("detail record format " + format + " (this Loupe reads " + FORMAT + ")");
    }
    b.clientProtocol = r.string();
    b.serverProtocol = r.string();
    b.clientStreamId = (int) r.zigzag();
    b.serverStreamId = (int) r.zigzag();
    b.clientQuicConnectionId = r.string();
    b.serverQuicConnectionId = r.string();
    b.http3Status = r.string();
    b.clientConnection = connection(r, certs);
    b.serverConnection = connection(r, certs);
    b.request = request(r);
    b.originalRequest = request(r);
    b.response = response(r);
    b.originalResponse = response(r);
    int n = r.varint();
    for (int i = 0; i < n; i++) {
      b.informational.add(response(r));
    }
    b.requestTrailers = headers(r);
    b.responseTrailers = headers(r);
    b.webSocketCloseCode = (int) r.zigzag();
    b.webSocketCloseReason = r.string();
    timings(r, b.timings);
    int notes = r.varint();
    for (int i = 0; i < notes; i++) {
      b.notes.add(nonNull(r.string()));
    }
  }

  /** "content-encod" in ASCII: every header name Java's equalsIgnoreCase takes for Content-Encoding holds it. */
  private static final AsciiNeedle CONTENT_ENCOD = new AsciiNeedle("content-encod");

  /**
   * The {@code Content-Encoding} (first value, as {@link Headers#get}) of the flow's request and of
   * its final response, read from {@code blob} without decoding the rest: {@code {request,
   * response}}, each null when that head or header is absent. A blob that does not hold the letters
   * {@code content-encod} in any case, the common case, is not decoded at all.
   */
  static String[] contentEncodings(byte[] blob) {
    String[] out = new String[2];
    if (!CONTENT_ENCOD.in(blob)) {
      return out;
    }
    BlobReader r = new BlobReader(blob);
    int format = r.u8();
    if (format != FORMAT) {
      throw new BlobReader.CorruptBlobException("detail record format " + format + " (this Loupe reads " + FORMAT + ")");
    }
    r.string();
    r.string();
    r.zigzag();
    r.zigzag();
    r.string();
    r.string();
    r.string();
    skipConnection(r);
    skipConnection(r);
    RequestHead request = request(r);
    request(r); // the original request
    ResponseHead response = response(r);
    out[0] = request == null ? null : request.headers().get("content-encoding");
    out[1] = response == null ? null : response.headers().get("content-encoding");
    return out;
  }

  /** Reads past a connection as {@link #connection(BlobReader, CertificateSource)} reads it. */
  private static void skipConnection(BlobReader r) {
    if (!r.bool()) {
      return;
    }
    r.varlong();
    skipAddress(r);
    skipAddress(r);
    r.bool();
    if (r.bool()) {
      r.string();
      r.string();
      r.string();
      r.string();
      r.bool();
      int n = r.varint();
      for (int i = 0; i < n; i++) {
        r.bytes();
      }
    }
  }

  private static void skipAddress(BlobReader r) {
    if (r.bool()) {
      r.string();
      r.bytes();
      r.varint();
    }
  }

  /**
   * A lower-case ASCII word searched in bytes with ASCII letters compared in any case, by
   * Boyer-Moore-Horspool: most windows are skipped a word's length at a time. Immutable.
   */
  static final class AsciiNeedle {
    private final byte[] needle;
    private final int[] shift = new int[256];

    AsciiNeedle(String lowerCase) {
      needle = lowerCase.getBytes(StandardCharsets.US_ASCII);
      int m = needle.length;
      java.util.Arrays.fill(shift, m);
      for (int j = 0; j < m - 1; j++) {
        shift[needle[j] & 0xFF] = m - 1 - j;
        shift[Character.toUpperCase((char) needle[j]) & 0xFF] = m - 1 - j;
      }
    }

    /** Whether the word occurs in {@code hay}. */
    boolean in(byte[] hay) {
      int m = needle.length;
      for (int i = m - 1; i < hay.length; i += shift[hay[i] & 0xFF]) {
        int k = 0;
        while (k < m && lowerAscii(hay[i - k]) == needle[m - 1 - k]) {
          k++;
        }
        if (k == m) {
          return true;
        }
      }
      return false;
    }

    private static int lowerAscii(byte b) {
      return b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b;
    }
  }

  // ---- heads -----------------------------------------------------------------------------------

  private static void request(BlobWriter w, RequestHead h) {
    w.bool(h != null);
    if (h != null) {
      w.string(h.method()).string(h.scheme()).string(h.host()).varlong(h.port()).string(h.target())
          .string(h.httpVersion());
      headers(w, h.headers());
    }
  }

  private static RequestHead request(BlobReader r) {
    if (!r.bool()) {
      return null;
    }
    String method = r.string();
    String scheme = r.string();
    String host = r.string();
    int port = r.varint();
    String target = r.string();
    String version = r.string();
    return new RequestHead(nonNull(method), nonNull(scheme), nonNull(host), port, nonNull(target), nonNull(version),
        headers(r));
  }

  private static void response(BlobWriter w, ResponseHead h) {
    w.bool(h != null);
    if (h != null) {
      w.varlong(h.status()).string(h.reason()).string(h.httpVersion());
      headers(w, h.headers());
    }
  }

  private static ResponseHead response(BlobReader r) {
    if (!r.bool()) {
      return null;
    }
    int status = r.varint();
    String reason = r.string();
    String version = r.string();
    return new ResponseHead(status, nonNull(reason), nonNull(version), headers(r));
  }

  private static void headers(BlobWriter w, Headers h) {
    List<Headers.Field> fields = h.fields();
    int n = fields.size();
    w.varlong(n);
    for (int i = 0; i < n; i++) { // by index: no iterator per head
      Headers.Field f = fields.get(i);
      w.string(f.name()).string(f.value());
    }
  }

  private static Headers headers(BlobReader r) {
    int n = r.varint();
    if (n == 0) {
      return Headers.EMPTY;
    }
    List<Headers.Field> fields = new ArrayList<>(Math.min(n, 256));
    for (int i = 0; i < n; i++) {
      fields.add(new Headers.Field(nonNull(r.string()), nonNull(r.string())));
    }
    return Headers.of(fields);
  }

  private static String nonNull(String s) {
    if (s == null) {
      throw new BlobReader.CorruptBlobException("a required text is missing");
    }
    return s;
  }

  // ---- connections -----------------------------------------------------------------------------

  private static void connection(BlobWriter w, ConnectionInfo c, CertificateSink certs, EncodedParts parts) {
    w.bool(c != null);
    if (c == null) {
      return;
    }
    w.varlong(c.id());
    address(w, c.remoteAddress(), parts);
    address(w, c.localAddress(), parts);
    w.bool(c.reused());
    TlsInfo tls = c.tls();
    if (tls == null) {
      w.bool(false);
      return;
    }
    byte[] known = parts == null ? null : parts.get(tls);
    if (known != null) {
      w.raw(known);
      return;
    }
    int mark = w.length();
    w.bool(true);
    w.string(tls.sni()).string(tls.protocol()).string(tls.cipherSuite()).string(tls.alpn()).bool(tls.verified());
    w.varlong(tls.peerCertificates().size());
    for (X509Certificate cert : tls.peerCertificates()) {
      w.bytes(certs.put(cert));
    }
    if (parts != null) {
      parts.put(tls, w.copyFrom(mark));
    }
  }

  private static ConnectionInfo connection(BlobReader r, CertificateSource certs) {
    if (!r.bool()) {
      return null;
    }
    long id = r.varlong();
    InetSocketAddress remote = address(r);
    InetSocketAddress local = address(r);
    boolean reused = r.bool();
    TlsInfo tls = null;
    if (r.bool()) {
      String sni = r.string();
      String protocol = r.string();
      String cipher = r.string();
      String alpn = r.string();
      boolean verified = r.bool();
      int n = r.varint();
      List<X509Certificate> chain = new ArrayList<>(Math.min(n, 16));
      for (int i = 0; i < n; i++) {
        chain.add(certs.get(r.bytes()));
      }
      tls = new TlsInfo(sni, protocol, cipher, alpn, chain, verified);
    }
    return new ConnectionInfo(id, remote, local, tls, reused);
  }

  private static void address(BlobWriter w, InetSocketAddress a, EncodedParts parts) {
    if (a == null) {
      w.bool(false);
      return;
    }
    byte[] known = parts == null ? null : parts.get(a);
    if (known != null) {
      w.raw(known);
      return;
    }
    int mark = w.length();
    w.bool(true);
    InetAddress ip = a.getAddress();
    w.string(a.getHostString());
    w.bytes(ip == null ? new byte[0] : ip.getAddress());
    w.varlong(a.getPort());
    if (parts != null) {
      parts.put(a, w.copyFrom(mark));
    }
  }

  private static InetSocketAddress address(BlobReader r) {
    if (!r.bool()) {
      return null;
    }
    String host = r.string();
    byte[] ip = r.bytes();
    int port = r.varint();
    if (ip.length == 0) {
      return InetSocketAddress.createUnresolved(nonNull(host), port);
    }
    try {
      // the host string is kept as it was (a name, or the literal), without a lookup
      return new InetSocketAddress(InetAddress.getByAddress(host, ip), port);
    } catch (UnknownHostException e) {
      throw new BlobReader.CorruptBlobException("an address of " + ip.length + " bytes");
    }
  }

  // ---- timings ---------------------------------------------------------------------------------

  private static void timings(BlobWriter w, long[] t) {
    int mask = 0;
    for (int i = 0; i < t.length; i++) {
      if (t[i] != 0) {
        mask |= 1 << i;
      }
    }
    w.varlong(mask);
    boolean first = true;
    long base = 0;
    for (long v : t) {
      if (v == 0) {
        continue;
      }
      if (first) {
        w.zigzag(v);
        base = v;
        first = false;
      } else {
        w.zigzag(v - base);
      }
    }
  }

  private static void timings(BlobReader r, long[] t) {
    long mask = r.varlong();
    boolean first = true;
    long base = 0;
    for (int i = 0; i < t.length; i++) {
      if ((mask & (1L << i)) == 0) {
        continue;
      }
      if (first) {
        base = r.zigzag();
        t[i] = base;
        first = false;
      } else {
        t[i] = base + r.zigzag();
      }
    }
  }
}
