package dev.loupe.testing;

import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.LeafCertificate;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import io.netty.handler.codec.http2.DefaultHttp2GoAwayFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * An in-process origin speaking HTTP/1.1 and HTTP/2, cleartext or TLS with certificates from a
 * test CA, streaming in both directions.
 *
 * <h3>Protocols</h3>
 * <ul>
 *   <li>{@link #http()}: cleartext HTTP/1.1 only.
 *   <li>{@link #https()}: TLS, HTTP/1.1 only, no ALPN (as before HTTP/2 came to Loupe).
 *   <li>{@link #h2AndH1()}: TLS offering ALPN {@code h2} and {@code http/1.1}; a client that offers
 *       no ALPN (or only {@code http/1.1}) gets HTTP/1.1. {@link #h2Only()} offers {@code h2} only and
 *       closes a connection that did not negotiate it (right after the handshake);
 *       {@link #h1Only()} offers {@code http/1.1} only (an origin that knows ALPN but not h2).
 *       {@link #https(Protocol...)} for any other offer.
 *   <li>{@link #h2c()}: cleartext, HTTP/2 with prior knowledge (RFC 9113 §3.3: the connection
 *       starts with the {@code PRI * HTTP/2.0} preface) or HTTP/1.1 otherwise.
 *   <li>{@link #builder()} for the rest (HTTP/2 SETTINGS such as MAX_CONCURRENT_STREAMS).
 * </ul>
 * Over HTTP/2 each stream gets Netty's {@link Http2StreamFrameToHttpObjectCodec} and the same
 * route handler as HTTP/1.1, so every route behaves the same on both (except {@code /ws}, which
 * needs HTTP/1.1, and {@code /drop-next}, which is about HTTP/1.1 keep-alive).
 *
 * <h3>Routes</h3>
 * <ul>
 *   <li>{@code GET|HEAD /bytes/N[?chunked=1]} — N deterministic bytes ({@link TestData}), streamed with backpressure;
 *   <li>{@code POST|PUT /sha256} — answers "SHA256HEX LENGTH" of the body; honours {@code Expect: 100-continue};
 *   <li>{@code POST|PUT /echo} — streams the body back, chunked;
 *   <li>{@code /status/CODE}, {@code /headers} (request headers as text), {@code /trailers} (chunked with a trailer);
 *   <li>{@code /early-hints} — a {@code 103 Early Hints} with {@code link: </style.css>; rel=preload},
 *       then 200 "early hints";
 *   <li>{@code /trailers-echo} — answers "SHA256HEX LENGTH" of the body, chunked, with the request's
 *       trailer fields as its own trailer fields;
 *   <li>{@code /reset} — promises 100000 bytes, sends 1000, closes (HTTP/2: resets the stream);
 *       {@code /close} — closes without answering (HTTP/2: resets the stream);
 *   <li>{@code /slow/MS} — answers after MS milliseconds; {@code /ws} — WebSocket echo (HTTP/1.1);
 *   <li>{@code /stall} — takes the request head and then reads nothing more (HTTP/1.1: the
 *       connection, HTTP/2: the stream), so a body backs up into the client's buffers and flow
 *       control, until {@link #resumeStalled()}; then answers "stalled LENGTH" once the body ends;
 *   <li>{@code /goaway} — answers, then (HTTP/2) sends GOAWAY(NO_ERROR) on the connection, which
 *       takes no new streams afterwards; over HTTP/1.1 answers with {@code Connection: close};
 *   <li>{@code /drop-next} — answers (keep-alive), then closes the connection, without a word, when
 *       the next request arrives on it (a keep-alive connection the origin gave up on).
 * </ul>
 *
 * <h3>What it records</h3>
 * Every request head ({@link Seen}: protocol, connection, stream) and how handling it ended
 * ({@link Seen#ending()}: answered in full, or cut off because the connection closed or the stream
 * was reset first, with the request body length and trailers); connections opened and closed;
 * RST_STREAM frames received; the peak number of requests in progress at once per connection.
 */
public final class TestOrigin implements AutoCloseable {
  /** Application protocols an origin offers by ALPN. */
  public enum Protocol {
    H2(ApplicationProtocolNames.HTTP_2),
    HTTP_1_1(ApplicationProtocolNames.HTTP_1_1);

    private final String alpn;

    Protocol(String alpn) {
      this.alpn = alpn;
    }

    public String alpn() {
      return alpn;
    }
  }

  /** {@link Seen#protocol()} of a request that arrived over HTTP/1.x. */
  public static final String HTTP_1_1 = "HTTP/1.1";
  /** {@link Seen#protocol()} of a request that arrived on an HTTP/2 stream. */
  public static final String HTTP_2 = "HTTP/2";

  /**
   * A request as the origin saw it.
   *
   * @param protocol   {@link #HTTP_1_1} or {@link #HTTP_2}
   * @param connection the origin-side connection it arrived on, numbered from 1 in accept order
   * @param stream     its HTTP/2 stream id, or -1 over HTTP/1.x
   * @param ending     completes when the origin is done with it (see {@link Ending})
   */
  public record Seen(String method, String uri, HttpHeaders headers, String protocol, int connection, int stream,
      CompletableFuture<Ending> ending) {
    @Override
    public String toString() {
      return method + " " + uri + " (" + protocol + ", connection " + connection
          + (stream > 0 ? ", stream " + stream : "") + ")";
    }
  }

  /** How the origin's handling of a request ended. */
  public enum Outcome {
    /** The whole response was written. */
    ANSWERED,
    /**
     * The connection closed (HTTP/2: the stream closed without a RST_STREAM from the client) before
     * the whole response was written: the client or proxy gave up, or a route such as
     * {@code /close} or {@code /reset} cut it off.
     */
    CLOSED,
    /** HTTP/2: the client reset the stream (RST_STREAM) before the whole response was written. */
    RESET
  }

  /**
   * How the origin's handling of one request ended.
   *
   * @param outcome            see {@link Outcome}
   * @param requestEnded       whether the whole request (body included) had arrived
   * @param requestBodyLength  request body bytes received
   * @param requestTrailers    trailer fields of the request (chunked trailers or an HTTP/2 trailing
   *                           HEADERS frame); empty when none
   */
  public record Ending(Outcome outcome, boolean requestEnded, long requestBodyLength, HttpHeaders requestTrailers) {
    /** Whether the whole response was written. */
    public boolean answered() {
      return outcome == Outcome.ANSWERED;
    }
  }

  private static final Map<String, SslContext> CONTEXTS = new ConcurrentHashMap<>();
  /** RFC 9113 §3.4: the client connection preface starts with this. */
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private final EventLoopGroup group;
  private final Channel server;
  private final boolean tls;
  /** Whether TLS connections negotiate ALPN at all. */
  private final boolean alpn;
  private final List<Protocol> offered;
  private final Http2Settings h2Settings;
  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  /** Channels a {@code /stall} request stopped reading, until {@link #resumeStalled()}. */
  private final List<Channel> stalled = new CopyOnWriteArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger closedConnections = new AtomicInteger();
  /** Numbers of the connections not closed yet. */
  private final java.util.Set<Integer> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger resetStreams = new AtomicInteger();
  /** RST_STREAM frames received per connection number. */
  private final Map<Integer, AtomicInteger> resetsByConnection = new ConcurrentHashMap<>();
  /** HTTP/2 connection errors this origin ended a connection with (GOAWAY sent), e.g. its rapid-reset limit. */
  private final List<String> connectionErrors = new CopyOnWriteArrayList<>();
  private final List<String> connectionProtocols = new CopyOnWriteArrayList<>();
  /** Requests in progress per connection number, and the most there ever were at once. */
  private final Map<Integer, AtomicInteger> active = new ConcurrentHashMap<>();
  private final Map<Integer, Integer> peak = new ConcurrentHashMap<>();
  /** Fields added to every final response head from now on ({@link #responseHeader}). */
  private final Map<String, String> extraResponseHeaders = new ConcurrentHashMap<>();
  /** An ALTSVC frame value sent before every HTTP/2 final response head ({@link #altSvcFrame}), or null. */
  private volatile String altSvcFrame;
  private volatile String altSvcFrameOrigin;

  private TestOrigin(Builder b) throws InterruptedException {
    this.tls = b.ca != null;
    this.alpn = b.protocols != null;
    this.offered = b.protocols != null ? List.copyOf(b.protocols) : List.of(Protocol.HTTP_1_1);
    this.h2Settings = b.h2Settings;
    this.group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    CertificateAuthority ca = b.ca;
    boolean cleartextH2 = b.cleartextH2;
    this.server = new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            int id = connections.incrementAndGet();
            open.add(id);
            ch.closeFuture().addListener(f -> {
              open.remove(id);
              closedConnections.incrementAndGet();
            });
            if (ca != null) {
              ch.pipeline().addLast(new SniHandler((String host) -> context(ca, host == null ? "127.0.0.1" : host)));
              ch.pipeline().addLast(new Negotiation(id));
            } else if (cleartextH2) {
              ch.pipeline().addLast(new PrefaceDetector(id));
            } else {
              http1(ch.pipeline(), id);
            }
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .sync()
        .channel();
  }

  /** Cleartext HTTP/1.1. */
  public static TestOrigin http() throws InterruptedException {
    return builder().start();
  }

  /**
   * TLS with a certificate from the origin CA (which the proxy under test trusts), HTTP/1.1 only
   * and no ALPN at all (an origin from before ALPN): every client gets HTTP/1.1, whatever it
   * offers. Suites written before HTTP/2 rely on this; for ALPN see {@link #https(Protocol...)}.
   */
  public static TestOrigin https() throws InterruptedException {
    return builder().tls().start();
  }

  /**
   * TLS offering exactly these protocols by ALPN, in order of preference; with none, as
   * {@link #https()}.
   */
  public static TestOrigin https(Protocol... protocols) throws InterruptedException {
    return protocols.length == 0 ? https() : builder().tls().protocols(protocols).start();
  }

  /** TLS offering ALPN {@code h2} and {@code http/1.1}: h2 to clients that offer it, else HTTP/1.1. */
  public static TestOrigin h2AndH1() throws InterruptedException {
    return https(Protocol.H2, Protocol.HTTP_1_1);
  }

  /** TLS, ALPN {@code h2} only: a connection that does not negotiate h2 is closed after the handshake. */
  public static TestOrigin h2Only() throws InterruptedException {
    return https(Protocol.H2);
  }

  /** TLS, ALPN {@code http/1.1} only: a client offering only h2 gets no ALPN answer, and HTTP/1.1. */
  public static TestOrigin h1Only() throws InterruptedException {
    return https(Protocol.HTTP_1_1);
  }

  /** Cleartext, HTTP/2 with prior knowledge (h2c) or HTTP/1.1, told apart by the connection preface. */
  public static TestOrigin h2c() throws InterruptedException {
    return builder().h2c().start();
  }

  /** TLS with a certificate from a CA nobody trusts (HTTP/1.1, no ALPN, as {@link #https()}). */
  public static TestOrigin untrustedHttps() throws InterruptedException {
    return builder().tls(TestPki.shared().untrustedCa()).start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Options for an origin; {@link #start()} binds it on a free loopback port. */
  public static final class Builder {
    private CertificateAuthority ca;
    private boolean cleartextH2;
    /** Null: no ALPN, HTTP/1.1 only. */
    private List<Protocol> protocols;
    private final Http2Settings h2Settings = Http2Settings.defaultSettings();

    private Builder() {}

    /** TLS with a certificate from the origin CA. */
    public Builder tls() {
      return tls(TestPki.shared().originCa());
    }

    public Builder tls(CertificateAuthority ca) {
      this.ca = ca;
      this.cleartextH2 = false;
      return this;
    }

    /** Cleartext with HTTP/2 by prior knowledge besides HTTP/1.1. */
    public Builder h2c() {
      this.ca = null;
      this.cleartextH2 = true;
      return this;
    }

    /** ALPN protocols offered over TLS, in order of preference (default: no ALPN, HTTP/1.1 only). */
    public Builder protocols(Protocol... p) {
      if (p.length == 0) {
        throw new IllegalArgumentException("no protocol");
      }
      this.protocols = List.of(p);
      return this;
    }

    /** HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS (default: unlimited). */
    public Builder maxConcurrentStreams(long n) {
      h2Settings.maxConcurrentStreams(n);
      return this;
    }

    /** HTTP/2 SETTINGS_INITIAL_WINDOW_SIZE (default 65,535): how much a client may send per stream unasked. */
    public Builder initialWindowSize(int n) {
      h2Settings.initialWindowSize(n);
      return this;
    }

    public TestOrigin start() throws InterruptedException {
      return new TestOrigin(this);
    }
  }

  public int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  /** {@code http(s)://HOST:PORT} with the given host name (127.0.0.1 or localhost). */
  public String url(String host) {
    return (tls ? "https" : "http") + "://" + host + ":" + port();
  }

  public String url() {
    return url("127.0.0.1");
  }

  /** {@code 127.0.0.1:PORT}, the authority of {@link #url()}. */
  public String authority() {
    return "127.0.0.1:" + port();
  }

  /** Protocols offered by ALPN (TLS origins); {@code [HTTP_1_1]} for an origin without ALPN. */
  public List<Protocol> offered() {
    return offered;
  }

  public List<Seen> seen() {
    return seen;
  }

  /** Channels that {@code /stall} requests stopped reading start reading again (and see what happened meanwhile). */
  public void resumeStalled() {
    for (Channel ch : stalled) {
      ch.eventLoop().execute(() -> ch.config().setAutoRead(true));
    }
    stalled.clear();
  }

  /** The last request whose URI contains {@code uriPart}, waiting up to 15 s for it to arrive. */
  public Seen awaitSeen(String uriPart) {
    return awaitSeen(s -> s.uri().contains(uriPart), "a request for " + uriPart);
  }

  public Seen awaitSeen(Predicate<Seen> which, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (true) {
      Seen last = null;
      for (Seen s : seen) {
        if (which.test(s)) {
          last = s;
        }
      }
      if (last != null) {
        return last;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the origin never saw " + what + "; it saw " + seen);
      }
      LockSupport.parkNanos(5_000_000);
    }
  }

  /** Connections accepted so far. */
  public int connections() {
    return connections.get();
  }

  /** Connections that have closed (either side). */
  public int closedConnections() {
    return closedConnections.get();
  }

  /** Connections accepted and not yet closed. */
  public int openConnections() {
    return connections.get() - closedConnections.get();
  }

  /** The numbers of the connections accepted and not yet closed. */
  public java.util.Set<Integer> openConnectionNumbers() {
    return java.util.Set.copyOf(open);
  }

  /** RST_STREAM frames received from clients. */
  public int resetStreams() {
    return resetStreams.get();
  }

  /**
   * RST_STREAM frames received per HTTP/2 connection number (for streams the origin knew: the ones
   * Netty's rapid-reset limit counts).
   */
  public Map<Integer, Integer> resetStreamsByConnection() {
    Map<Integer, Integer> m = new java.util.TreeMap<>();
    resetsByConnection.forEach((k, v) -> m.put(k, v.get()));
    return m;
  }

  /**
   * HTTP/2 connection errors the origin closed a connection for (after a GOAWAY), as "connection
   * N: message", e.g. Netty's rapid-reset limit ("Maximum number of RST frames reached": more than
   * 200 RST_STREAMs in 30 s, the default of {@code Http2FrameCodecBuilder}, kept here).
   */
  public List<String> connectionErrors() {
    return List.copyOf(connectionErrors);
  }

  /**
   * The protocol each connection settled on ({@link #HTTP_1_1} or {@link #HTTP_2}), in the order
   * they settled (a TLS connection settles after its handshake).
   */
  public List<String> connectionProtocols() {
    return List.copyOf(connectionProtocols);
  }

  /**
   * The most requests (HTTP/2: streams) that were in progress at once on each connection, by
   * connection number: how far a client multiplexed, and whether it kept to
   * SETTINGS_MAX_CONCURRENT_STREAMS. A request is in progress from its head until its
   * {@link Seen#ending()}.
   */
  public Map<Integer, Integer> peakConcurrentRequests() {
    return Map.copyOf(peak);
  }

  /** Requests (HTTP/2: streams) per connection number, for connections that carried any. */
  public Map<Integer, Integer> requestsPerConnection() {
    Map<Integer, Integer> m = new LinkedHashMap<>();
    for (Seen s : seen) {
      m.merge(s.connection(), 1, Integer::sum);
    }
    return m;
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  // ---- connection set-up -------------------------------------------------------------------

  private SslContext context(CertificateAuthority ca, String host) {
    if (!alpn) {
      return TestPki.shared().originContext(ca, host);
    }
    List<String> names = offered.stream().map(Protocol::alpn).toList();
    return CONTEXTS.computeIfAbsent(ca.certificatePath() + "|" + host + "|" + names, k -> {
      try {
        LeafCertificate leaf = ca.leafFor(host);
        return SslContextBuilder.forServer(leaf.privateKey(), leaf.chain().toArray(new X509Certificate[0]))
            .applicationProtocolConfig(new ApplicationProtocolConfig(
                ApplicationProtocolConfig.Protocol.ALPN,
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                names))
            .build();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  /**
   * Adds {@code name: value} to every final response head sent from now on (e.g. {@code Alt-Svc});
   * a null value stops adding it.
   */
  public void responseHeader(String name, String value) {
    if (value == null) {
      extraResponseHeaders.remove(name);
    } else {
      extraResponseHeaders.put(name, value);
    }
  }

  /**
   * Over HTTP/2, sends an ALTSVC frame (RFC 7838 §4) with {@code fieldValue} before every final
   * response head from now on: on stream 0 naming {@code origin} (e.g. {@code
   * https://127.0.0.1:PORT}), or on the response's own stream when {@code origin} is null. A null
   * {@code fieldValue} stops it.
   */
  public void altSvcFrame(String fieldValue, String origin) {
    altSvcFrameOrigin = origin;
    altSvcFrame = fieldValue;
  }

  /** Puts {@link #extraResponseHeaders} on final response heads on their way out (and ALTSVC frames before them). */
  private final class ExtraResponseHeaders extends io.netty.channel.ChannelOutboundHandlerAdapter {
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, io.netty.channel.ChannelPromise promise) throws Exception {
      if (msg instanceof HttpResponse r && r.status().code() >= 200) {
        extraResponseHeaders.forEach((n, v) -> r.headers().set(n, v));
        String frame = altSvcFrame;
        if (frame != null && ctx.channel() instanceof Http2StreamChannel) {
          sendAltSvcFrame(ctx, frame, altSvcFrameOrigin);
        }
      }
      ctx.write(msg, promise);
    }

    private void sendAltSvcFrame(ChannelHandlerContext ctx, String value, String origin) {
      byte[] o = origin == null ? new byte[0] : origin.getBytes(StandardCharsets.US_ASCII);
      ByteBuf payload = Unpooled.buffer(2 + o.length + value.length());
      payload.writeShort(o.length).writeBytes(o).writeBytes(value.getBytes(StandardCharsets.US_ASCII));
      io.netty.handler.codec.http2.Http2Flags flags = new io.netty.handler.codec.http2.Http2Flags();
      if (origin == null) {
        ctx.write(new io.netty.handler.codec.http2.DefaultHttp2UnknownFrame((byte) 0xa, flags, payload));
        return;
      }
      // Stream 0: past the stream channel, straight to the connection's frame writer.
      ChannelHandlerContext codec = ctx.channel().parent().pipeline()
          .context(io.netty.handler.codec.http2.Http2FrameCodec.class);
      ((io.netty.handler.codec.http2.Http2FrameCodec) codec.handler()).encoder().frameWriter()
          .writeFrame(codec, (byte) 0xa, 0, flags, payload, codec.newPromise());
      codec.flush();
    }
  }

  private void http1(ChannelPipeline p, int connection) {
    connectionProtocols.add(HTTP_1_1);
    p.addLast("codec", new HttpServerCodec());
    p.addLast("extra-headers", new ExtraResponseHeaders());
    p.addLast(new ChunkedWriteHandler());
    p.addLast("handler", new Handler(HTTP_1_1, connection));
  }

  private void http2(ChannelPipeline p, int connection) {
    connectionProtocols.add(HTTP_2);
    Http2Settings settings = new Http2Settings();
    settings.putAll(h2Settings);
    p.addLast("h2", Http2FrameCodecBuilder.forServer().initialSettings(settings).build());
    p.addLast("h2-multiplex", new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
      @Override
      protected void initChannel(Http2StreamChannel stream) {
        stream.pipeline().addLast("codec", new Http2StreamFrameToHttpObjectCodec(true));
        stream.pipeline().addLast("extra-headers", new ExtraResponseHeaders());
        stream.pipeline().addLast(new ChunkedWriteHandler());
        stream.pipeline().addLast("handler", new Handler(HTTP_2, connection));
      }
    }));
    p.addLast("h2-errors", new ChannelInboundHandlerAdapter() {
      // The codec has sent GOAWAY and closes the connection; recorded rather than logged at the tail.
      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        connectionErrors.add("connection " + connection + ": " + cause);
      }
    });
  }

  /** After the TLS handshake: HTTP/2 or HTTP/1.1 as ALPN decided. */
  private final class Negotiation extends ApplicationProtocolNegotiationHandler {
    private final int connection;

    Negotiation(int connection) {
      super(ApplicationProtocolNames.HTTP_1_1);
      this.connection = connection;
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
      if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
        http2(ctx.pipeline(), connection);
      } else if (offered.contains(Protocol.HTTP_1_1)) {
        http1(ctx.pipeline(), connection);
      } else {
        ctx.close(); // an h2-only origin and a client that did not negotiate h2
      }
    }

    @Override
    protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close(); // e.g. the proxy does not trust this origin: expected in some tests, not worth a log line
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
      if (cause instanceof java.io.IOException) {
        ctx.close(); // the proxy dropped the connection mid-handshake (its client left): not worth a warning
      } else {
        super.exceptionCaught(ctx, cause);
      }
    }
  }

  /** Cleartext: the HTTP/2 connection preface means prior-knowledge h2c, anything else HTTP/1.1. */
  private final class PrefaceDetector extends ByteToMessageDecoder {
    private final int connection;

    PrefaceDetector(int connection) {
      this.connection = connection;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      int n = Math.min(in.readableBytes(), PREFACE.length);
      boolean matches = true;
      for (int i = 0; i < n && matches; i++) {
        matches = in.getByte(in.readerIndex() + i) == PREFACE[i];
      }
      if (matches && n < PREFACE.length) {
        return; // not enough bytes to tell yet
      }
      if (matches) {
        http2(ctx.pipeline(), connection);
      } else {
        http1(ctx.pipeline(), connection);
      }
      ctx.pipeline().remove(this); // hands the bytes read so far to the protocol just installed
    }
  }

  // ---- routes ------------------------------------------------------------------------------

  /**
   * Routes for one HTTP/1.1 connection (requests in turn) or one HTTP/2 stream (one request).
   * Event-loop confined.
   */
  private final class Handler extends SimpleChannelInboundHandler<HttpObject> {
    private final String protocol;
    private final int connection;
    private String route;
    private boolean dropNext;
    private HttpRequest request;
    private MessageDigest digest;
    /** The request being read (body, trailers). */
    private Track current;
    /** Requests whose response is not written yet, oldest first. */
    private final List<Track> unanswered = new ArrayList<>();
    /** HTTP/2: a RST_STREAM arrived. */
    private boolean reset;

    Handler(String protocol, int connection) {
      this.protocol = protocol;
      this.connection = connection;
    }

    private boolean h2() {
      return protocol.equals(HTTP_2);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) throws Exception {
      if (msg instanceof HttpRequest r) {
        request = r;
        int stream = ctx.channel() instanceof Http2StreamChannel sc ? sc.stream().id() : -1;
        HttpHeaders headers = r.headers().copy();
        if (h2()) {
          // The adapter's own x-http2-* fields were never on the wire.
          List<String> names = new ArrayList<>();
          for (Map.Entry<String, String> e : headers) {
            if (e.getKey().regionMatches(true, 0, "x-http2-", 0, 8)) {
              names.add(e.getKey());
            }
          }
          names.forEach(headers::remove);
        }
        Seen s = new Seen(r.method().name(), r.uri(), headers, protocol, connection, stream, new CompletableFuture<>());
        current = new Track(s);
        unanswered.add(current);
        int now = active.computeIfAbsent(connection, k -> new AtomicInteger()).incrementAndGet();
        peak.merge(connection, now, Math::max);
        seen.add(s);
        route = new QueryStringDecoder(r.uri()).path();
        digest = MessageDigest.getInstance("SHA-256");
        onHead(ctx, r);
      }
      if (msg instanceof HttpContent c) {
        if (route == null) {
          return; // content after a request this handler already gave up on
        }
        onContent(ctx, c);
        if (c instanceof LastHttpContent last) {
          current.requestEnded = true;
          current.trailers = last.trailingHeaders().copy();
          onEnd(ctx, last);
        }
      }
    }

    /** Records how handling {@code t} ended (the first call wins). */
    private void ended(Track t, Outcome outcome) {
      if (unanswered.remove(t)) {
        active.get(connection).decrementAndGet();
        t.seen.ending().complete(new Ending(outcome, t.requestEnded, t.length, t.trailers));
      }
    }

    private void endAllUnanswered() {
      for (Track t : List.copyOf(unanswered)) {
        ended(t, reset ? Outcome.RESET : Outcome.CLOSED);
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
      if (evt instanceof Http2ResetFrame) {
        reset = true;
        resetStreams.incrementAndGet();
        resetsByConnection.computeIfAbsent(connection, k -> new AtomicInteger()).incrementAndGet();
      }
      super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      endAllUnanswered();
      super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      endAllUnanswered();
      ctx.close();
    }

    private void onHead(ChannelHandlerContext ctx, HttpRequest r) {
      if (dropNext) {
        route = "/close";
      }
      if (route.equals("/drop-next")) {
        dropNext = true;
        route = "/status/200";
      }
      if (route.equals("/close")) {
        ctx.close();
        return;
      }
      if (route.equals("/stall")) {
        stalled.add(ctx.channel());
        ctx.channel().config().setAutoRead(false);
        return;
      }
      if (route.equals("/ws")) {
        if (h2()) {
          route = "/ws-needs-http1"; // answered 404 at the end: RFC 8441 is not offered here
          return;
        }
        DefaultFullHttpRequest full = new DefaultFullHttpRequest(r.protocolVersion(), r.method(), r.uri(),
            Unpooled.EMPTY_BUFFER, r.headers(), EmptyHttpHeaders.INSTANCE);
        WebSocketServerHandshaker hs = new WebSocketServerHandshakerFactory(
            "ws://" + r.headers().get(HttpHeaderNames.HOST) + "/ws", null, true, 64 << 20).newHandshaker(full);
        ctx.pipeline().remove(ChunkedWriteHandler.class);
        ctx.pipeline().replace("handler", "ws", new WsEcho());
        Track t = current;
        hs.handshake(ctx.channel(), full).addListener(f -> ended(t, f.isSuccess() ? Outcome.ANSWERED
            : Outcome.CLOSED));
        return;
      }
      if ((route.equals("/sha256") || route.equals("/continue")) && HttpUtil.is100ContinueExpected(r)) {
        // A whole message on HTTP/1.1; over HTTP/2 the adapter insists on a full response too and
        // sends it as a HEADERS frame without END_STREAM.
        ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
      }
      if (route.equals("/echo")) {
        HttpResponse res = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        res.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
        ctx.writeAndFlush(res);
      }
    }

    private void onContent(ChannelHandlerContext ctx, HttpContent c) {
      ByteBuf b = c.content();
      current.length += b.readableBytes();
      if (b.isReadable()) {
        digest.update(b.nioBuffer());
        if ("/echo".equals(route)) {
          ctx.writeAndFlush(new DefaultHttpContent(b.retainedDuplicate()));
        }
      }
    }

    private void onEnd(ChannelHandlerContext ctx, LastHttpContent last) {
      if (route == null || route.equals("/close") || route.equals("/ws")) {
        return;
      }
      HttpRequest r = request;
      boolean keepAlive = HttpUtil.isKeepAlive(r);
      if (route.equals("/echo")) {
        finish(ctx, ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT), keepAlive);
        return;
      }
      if (route.equals("/sha256") || route.equals("/continue")) {
        text(ctx, 200, HexFormat.of().formatHex(digest.digest()) + " " + current.length, keepAlive);
        return;
      }
      if (route.startsWith("/bytes/")) {
        long n = Long.parseLong(route.substring("/bytes/".length()));
        boolean chunked = new QueryStringDecoder(r.uri()).parameters().containsKey("chunked");
        HttpResponse res = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
        if (chunked) {
          res.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        } else {
          res.headers().set(HttpHeaderNames.CONTENT_LENGTH, n);
        }
        HttpUtil.setKeepAlive(res, keepAlive);
        if (r.method().equals(HttpMethod.HEAD) && h2()) {
          // One HEADERS frame with END_STREAM, as HTTP/2 servers answer HEAD.
          finish(ctx, ctx.writeAndFlush(new DefaultFullHttpResponse(res.protocolVersion(), res.status(),
              Unpooled.EMPTY_BUFFER, res.headers(), EmptyHttpHeaders.INSTANCE)), keepAlive);
          return;
        }
        ctx.write(res);
        if (r.method().equals(HttpMethod.HEAD)) {
          finish(ctx, ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT), keepAlive);
          return;
        }
        finish(ctx, ctx.writeAndFlush(new HttpChunkedInput(new DataInput(n))), keepAlive);
        return;
      }
      if (route.equals("/early-hints")) {
        // Interim responses are whole messages (the HTTP/2 adapter insists on a full one).
        FullHttpResponse hints = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(103));
        hints.headers().set("link", "</style.css>; rel=preload");
        ctx.write(hints);
        text(ctx, 200, "early hints", keepAlive);
        return;
      }
      if (route.startsWith("/status/")) {
        int code = Integer.parseInt(route.substring("/status/".length()));
        if (code == 204 || code == 304) {
          FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(code));
          HttpUtil.setKeepAlive(res, keepAlive);
          finish(ctx, ctx.writeAndFlush(res), keepAlive);
        } else {
          text(ctx, code, "status " + code, keepAlive);
        }
        return;
      }
      if (route.equals("/headers")) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : current.seen.headers()) {
          sb.append(e.getKey().toLowerCase()).append(": ").append(e.getValue()).append('\n');
        }
        text(ctx, 200, sb.toString(), keepAlive);
        return;
      }
      if (route.equals("/trailers")) {
        HttpResponse res = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        res.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        res.headers().set(HttpHeaderNames.TRAILER, "x-checksum");
        ctx.write(res);
        ctx.write(new DefaultHttpContent(Unpooled.copiedBuffer("hello trailers", StandardCharsets.UTF_8)));
        LastHttpContent end = new DefaultLastHttpContent();
        end.trailingHeaders().set("x-checksum", "abc123");
        finish(ctx, ctx.writeAndFlush(end), keepAlive);
        return;
      }
      if (route.equals("/trailers-echo")) {
        HttpResponse res = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        res.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        if (!last.trailingHeaders().isEmpty()) {
          res.headers().set(HttpHeaderNames.TRAILER, String.join(", ", last.trailingHeaders().names()));
        }
        HttpUtil.setKeepAlive(res, keepAlive);
        ctx.write(res);
        ctx.write(new DefaultHttpContent(Unpooled.copiedBuffer(
            HexFormat.of().formatHex(digest.digest()) + " " + current.length, StandardCharsets.UTF_8)));
        LastHttpContent end = new DefaultLastHttpContent();
        end.trailingHeaders().set(last.trailingHeaders());
        finish(ctx, ctx.writeAndFlush(end), keepAlive);
        return;
      }
      if (route.equals("/reset")) {
        HttpResponse res = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        res.headers().set(HttpHeaderNames.CONTENT_LENGTH, 100_000);
        ctx.write(res);
        ctx.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[1000])))
            .addListener(ChannelFutureListener.CLOSE);
        return;
      }
      if (route.equals("/goaway")) {
        if (!h2()) {
          text(ctx, 200, "goaway", false); // HTTP/1.1: Connection: close
          return;
        }
        // Answer, then GOAWAY (NO_ERROR) on the connection: no new streams, the ones open may finish.
        Channel connectionChannel = ctx.channel().parent();
        Track t = current;
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
            Unpooled.copiedBuffer("goaway", StandardCharsets.UTF_8));
        res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, res.content().readableBytes());
        ChannelFuture f = ctx.writeAndFlush(res);
        finish(ctx, t, f, true);
        f.addListener(w -> connectionChannel.writeAndFlush(new DefaultHttp2GoAwayFrame(Http2Error.NO_ERROR)));
        return;
      }
      if (route.equals("/stall")) {
        text(ctx, 200, "stalled " + current.length, keepAlive);
        return;
      }
      if (route.startsWith("/slow/")) {
        long ms = Long.parseLong(route.substring("/slow/".length()));
        Track t = current;
        ctx.executor().schedule(() -> text(ctx, t, 200, "slow " + ms, keepAlive), ms, TimeUnit.MILLISECONDS);
        return;
      }
      text(ctx, 404, "no route " + route, keepAlive);
    }

    private void text(ChannelHandlerContext ctx, int code, String body, boolean keepAlive) {
      text(ctx, current, code, body, keepAlive);
    }

    private void text(ChannelHandlerContext ctx, Track t, int code, String body, boolean keepAlive) {
      if (!ctx.channel().isActive()) {
        return; // e.g. /slow: the client left meanwhile
      }
      FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(code),
          Unpooled.copiedBuffer(body, StandardCharsets.UTF_8), new DefaultHttpHeaders(), new DefaultHttpHeaders());
      res.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
      res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, res.content().readableBytes());
      HttpUtil.setKeepAlive(res, keepAlive);
      finish(ctx, t, ctx.writeAndFlush(res), keepAlive);
    }

    /** The response's last write: its outcome is the request's ending. */
    private void finish(ChannelHandlerContext ctx, ChannelFuture f, boolean keepAlive) {
      finish(ctx, current, f, keepAlive);
    }

    private void finish(ChannelHandlerContext ctx, Track t, ChannelFuture f, boolean keepAlive) {
      f.addListener(w -> ended(t, w.isSuccess() ? Outcome.ANSWERED : reset ? Outcome.RESET : Outcome.CLOSED));
      if (!keepAlive) {
        f.addListener(ChannelFutureListener.CLOSE);
      }
    }
  }

  /** One request's progress through a {@link Handler}. Event-loop confined. */
  private static final class Track {
    final Seen seen;
    long length;
    boolean requestEnded;
    HttpHeaders trailers = EmptyHttpHeaders.INSTANCE;

    Track(Seen seen) {
      this.seen = seen;
    }
  }

  /** Echoes text and binary frames; answers ping and close. */
  private static final class WsEcho extends SimpleChannelInboundHandler<WebSocketFrame> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
      if (frame instanceof CloseWebSocketFrame close) {
        ctx.writeAndFlush(new CloseWebSocketFrame(close.statusCode(), close.reasonText()))
            .addListener(ChannelFutureListener.CLOSE);
        return;
      }
      if (frame instanceof PingWebSocketFrame) {
        ctx.writeAndFlush(new PongWebSocketFrame(frame.content().retain()));
        return;
      }
      if (frame instanceof PongWebSocketFrame) {
        return;
      }
      ctx.writeAndFlush(frame.retain());
    }
  }

  /** N deterministic bytes in 64 KiB pieces, pulled by ChunkedWriteHandler as the socket drains. */
  private static final class DataInput implements ChunkedInput<ByteBuf> {
    private final long n;
    private long offset;

    DataInput(long n) {
      this.n = n;
    }

    @Override
    public boolean isEndOfInput() {
      return offset >= n;
    }

    @Override
    public void close() {}

    @Deprecated
    @Override
    public ByteBuf readChunk(ChannelHandlerContext ctx) {
      return readChunk(ctx.alloc());
    }

    @Override
    public ByteBuf readChunk(ByteBufAllocator alloc) {
      if (offset >= n) {
        return null;
      }
      int len = (int) Math.min(64 * 1024, n - offset);
      byte[] b = new byte[len];
      TestData.fill(n, offset, b, len);
      offset += len;
      return Unpooled.wrappedBuffer(b);
    }

    @Override
    public long length() {
      return n;
    }

    @Override
    public long progress() {
      return offset;
    }
  }
}
