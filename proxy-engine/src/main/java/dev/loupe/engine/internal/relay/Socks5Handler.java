package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.AccessLog;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The SOCKS5 server side (<a href="https://datatracker.ietf.org/doc/html/rfc1928">RFC 1928</a>,
 * username/password authentication <a href="https://datatracker.ietf.org/doc/html/rfc1929">RFC 1929</a>)
 * in front of the same machinery as an HTTP CONNECT: after a successful CONNECT the tunnel goes to
 * the {@link TlsSniffer} (TLS intercepted with a per-host certificate, HTTP/2 by ALPN; cleartext
 * HTTP parsed; anything else an opaque tunnel), to an opaque {@link TunnelRelay} for ignored hosts
 * (connected first, so a failure gets its SOCKS reply code), or to {@link SetupHost} for
 * {@code loupe.setup}.
 *
 * <h3>States</h3>
 * {@code AWAITING_GREETING} → ({@code AWAITING_CREDENTIALS}) → {@code AWAITING_REQUEST} →
 * {@code CONNECTING} → removed. Authentication: when {@link ProxyAuthenticator#required required},
 * only method {@code 02} is accepted (a client offering no other gets {@code FF}); otherwise
 * {@code 00}, or {@code 02} with any credentials for a client that offers nothing else.
 *
 * <h3>Malformed input</h3>
 * Every violation is answered with the reply the RFC names, then the connection is closed:
 * {@code 07} for BIND, UDP ASSOCIATE and unknown commands, {@code 08} for an unknown address type,
 * {@code 01} for a bad version, an empty or invalid domain name, or port 0; {@code FF} when no
 * offered method is acceptable; {@code 01 01} for failed credentials. A client silent for
 * {@value #HANDSHAKE_TIMEOUT_MS} ms mid-handshake is closed. Bytes the client sends behind its
 * request (optimistic data) belong to the tunnel: the decoder hands them on when it leaves.
 *
 * <h3>Threads</h3>
 * One instance per connection, confined to its event loop. Auto-read is off; the decoder reads on
 * while a message is incomplete.
 */
final class Socks5Handler extends ByteToMessageDecoder {
  static final String NAME = "socks5";
  static final long HANDSHAKE_TIMEOUT_MS = 10_000;
  /** Bytes held while an ignored host is being connected (the client should wait for the reply). */
  private static final int MAX_EARLY_BYTES = 64 * 1024;

  static final int VERSION = 0x05;
  static final int AUTH_VERSION = 0x01;
  static final int METHOD_NONE = 0x00;
  static final int METHOD_PASSWORD = 0x02;
  static final int METHOD_UNACCEPTABLE = 0xFF;
  static final int CMD_CONNECT = 0x01;
  static final int ATYP_IPV4 = 0x01;
  static final int ATYP_DOMAIN = 0x03;
  static final int ATYP_IPV6 = 0x04;
  static final int REP_SUCCEEDED = 0x00;
  static final int REP_GENERAL_FAILURE = 0x01;
  static final int REP_NETWORK_UNREACHABLE = 0x03;
  static final int REP_HOST_UNREACHABLE = 0x04;
  static final int REP_CONNECTION_REFUSED = 0x05;
  static final int REP_TTL_EXPIRED = 0x06;
  static final int REP_COMMAND_NOT_SUPPORTED = 0x07;
  static final int REP_ADDRESS_TYPE_NOT_SUPPORTED = 0x08;

  private enum State { AWAITING_GREETING, AWAITING_CREDENTIALS, AWAITING_REQUEST, CONNECTING, CLOSED }

  private final EngineContext engine;
  private final AccessLog log;
  private final boolean launchedClient;
  private State state = State.AWAITING_GREETING;
  private boolean authRequired;
  private ScheduledFuture<?> timer;

  Socks5Handler(EngineContext engine, AccessLog log, boolean launchedClient) {
    this.engine = engine;
    this.log = log;
    this.launchedClient = launchedClient;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    authRequired = ProxyAuthenticator.required(engine, ctx.channel(), launchedClient);
    timer = ctx.executor().schedule(() -> {
      if (state != State.CONNECTING && state != State.CLOSED) {
        close(ctx);
      }
    }, HANDSHAKE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    if (ctx.channel().isActive()) {
      ctx.read();
    }
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    switch (state) {
      case AWAITING_GREETING -> greeting(ctx, in);
      case AWAITING_CREDENTIALS -> credentials(ctx, in);
      case AWAITING_REQUEST -> request(ctx, in);
      case CONNECTING -> {
        if (in.readableBytes() > MAX_EARLY_BYTES) {
          close(ctx);
        }
      }
      case CLOSED -> in.skipBytes(in.readableBytes());
    }
  }

  // ---- RFC 1928 §3: VER NMETHODS METHODS ---------------------------------------------------

  private void greeting(ChannelHandlerContext ctx, ByteBuf in) {
    if (in.readableBytes() < 2) {
      return;
    }
    int r = in.readerIndex();
    if (in.getUnsignedByte(r) != VERSION) {
      close(ctx); // not SOCKS5: there is no reply a client of another version would read
      return;
    }
    int n = in.getUnsignedByte(r + 1);
    if (in.readableBytes() < 2 + n) {
      return;
    }
    boolean none = false;
    boolean password = false;
    for (int i = 0; i < n; i++) {
      int m = in.getUnsignedByte(r + 2 + i);
      none |= m == METHOD_NONE;
      password |= m == METHOD_PASSWORD;
    }
    in.skipBytes(2 + n);
    int chosen = authRequired ? (password ? METHOD_PASSWORD : METHOD_UNACCEPTABLE)
        : none ? METHOD_NONE : password ? METHOD_PASSWORD : METHOD_UNACCEPTABLE;
    if (chosen == METHOD_UNACCEPTABLE) {
      if (authRequired) {
        log.refused(remote(ctx), "SOCKS5", "no username/password authentication offered", null);
      }
      replyAndClose(ctx, new byte[] {VERSION, (byte) METHOD_UNACCEPTABLE});
      return;
    }
    ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {VERSION, (byte) chosen}));
    state = chosen == METHOD_PASSWORD ? State.AWAITING_CREDENTIALS : State.AWAITING_REQUEST;
  }

  // ---- RFC 1929 §2: VER ULEN UNAME PLEN PASSWD ---------------------------------------------

  private void credentials(ChannelHandlerContext ctx, ByteBuf in) {
    if (in.readableBytes() < 2) {
      return;
    }
    int r = in.readerIndex();
    if (in.getUnsignedByte(r) != AUTH_VERSION) {
      replyAndClose(ctx, new byte[] {AUTH_VERSION, 0x01});
      return;
    }
    int ulen = in.getUnsignedByte(r + 1);
    if (in.readableBytes() < 3 + ulen) {
      return;
    }
    int plen = in.getUnsignedByte(r + 2 + ulen);
    if (in.readableBytes() < 3 + ulen + plen) {
      return;
    }
    byte[] user = new byte[ulen];
    byte[] pass = new byte[plen];
    in.getBytes(r + 2, user);
    in.getBytes(r + 3 + ulen, pass);
    in.skipBytes(3 + ulen + plen);
    if (authRequired) {
      ProxyAuthenticator.Verdict v = ulen == 0 || plen == 0
          ? new ProxyAuthenticator.Verdict("empty user name or password", null)
          : ProxyAuthenticator.socks(engine.config().proxyAuth(), user, pass);
      if (!v.ok()) {
        log.refused(remote(ctx), "SOCKS5", v.reason(), v.username());
        replyAndClose(ctx, new byte[] {AUTH_VERSION, 0x01});
        return;
      }
    }
    ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {AUTH_VERSION, 0x00}));
    state = State.AWAITING_REQUEST;
  }

  // ---- RFC 1928 §4: VER CMD RSV ATYP DST.ADDR DST.PORT -------------------------------------

  private void request(ChannelHandlerContext ctx, ByteBuf in) {
    if (in.readableBytes() < 4) {
      return;
    }
    int r = in.readerIndex();
    if (in.getUnsignedByte(r) != VERSION) {
      replyAndClose(ctx, reply(REP_GENERAL_FAILURE, null));
      return;
    }
    int cmd = in.getUnsignedByte(r + 1);
    if (cmd != CMD_CONNECT) {
      replyAndClose(ctx, reply(REP_COMMAND_NOT_SUPPORTED, null)); // BIND, UDP ASSOCIATE, unknown
      return;
    }
    int atyp = in.getUnsignedByte(r + 3);
    int addressLength;
    int addressStart = r + 4;
    switch (atyp) {
      case ATYP_IPV4 -> addressLength = 4;
      case ATYP_IPV6 -> addressLength = 16;
      case ATYP_DOMAIN -> {
        if (in.readableBytes() < 5) {
          return;
        }
        addressLength = in.getUnsignedByte(r + 4);
        addressStart = r + 5;
      }
      default -> {
        replyAndClose(ctx, reply(REP_ADDRESS_TYPE_NOT_SUPPORTED, null));
        return;
      }
    }
    int total = addressStart - r + addressLength + 2;
    if (in.readableBytes() < total) {
      return;
    }
    byte[] address = new byte[addressLength];
    in.getBytes(addressStart, address);
    int port = in.getUnsignedShort(addressStart + addressLength);
    in.skipBytes(total);
    String host = atyp == ATYP_DOMAIN ? domain(address) : literal(address);
    if (host == null || port == 0) {
      replyAndClose(ctx, reply(REP_GENERAL_FAILURE, null));
      return;
    }
    state = State.CONNECTING;
    timer.cancel(false);
    connect(ctx, host, port);
  }

  /** A domain name as sent, lower-cased; null when it is empty, too long or not a host name. */
  static String domain(byte[] name) {
    String s = new String(name, StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
    if (s.endsWith(".")) {
      s = s.substring(0, s.length() - 1);
    }
    if (s.isEmpty() || s.length() > 253) {
      return null;
    }
    for (String label : s.split("\\.", -1)) {
      if (label.isEmpty() || label.length() > 63 || label.startsWith("-") || label.endsWith("-")) {
        return null;
      }
      for (int i = 0; i < label.length(); i++) {
        char c = label.charAt(i);
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
          return null;
        }
      }
    }
    return s;
  }

  private static String literal(byte[] address) {
    try {
      return InetAddress.getByAddress(address).getHostAddress();
    } catch (UnknownHostException e) {
      return null; // cannot happen for 4 or 16 bytes
    }
  }

  // ---- after the request -------------------------------------------------------------------

  private void connect(ChannelHandlerContext ctx, String host, int port) {
    ChannelPipeline p = ctx.pipeline();
    ConnectionInfo client = new ConnectionInfo(dev.loupe.engine.internal.transport.ConnectionIds.of(ctx.channel()),
        (InetSocketAddress) ctx.channel().remoteAddress(), (InetSocketAddress) ctx.channel().localAddress(), null,
        false);
    if (SetupPage.isSetupHost(host)) {
      ctx.writeAndFlush(Unpooled.wrappedBuffer(reply(REP_SUCCEEDED, null)));
      p.addAfter(ctx.name(), SetupHost.NAME, new SetupHost(engine));
      p.remove(this);
      return;
    }
    if (!engine.config().ignored(host, port)) {
      // Like a CONNECT: answer at once; the server leg connects when the first request needs it.
      ctx.writeAndFlush(Unpooled.wrappedBuffer(reply(REP_SUCCEEDED, null)));
      p.addAfter(ctx.name(), Pipelines.SNIFFER, new TlsSniffer(engine, host, port, client));
      p.remove(this); // bytes behind the request go to the sniffer as its first
      return;
    }
    RecordedFlow flow = TunnelRelay.newTunnelFlow(engine, host, port, client);
    flow.clientProtocol("SOCKS5");
    engine.connector().acquire(ctx.channel().eventLoop(), "tcp", host, port, flow).addListener(f -> {
      UpstreamConnector.Result r = (UpstreamConnector.Result) f.getNow();
      if (r.error() != null || !ctx.channel().isActive() || state != State.CONNECTING) {
        if (r.connection() != null) {
          r.connection().channel().close();
        }
        FlowError error = r.error() != null ? r.error()
            : new FlowError(FlowError.Kind.CLIENT_ABORT, "the client left before the tunnel opened");
        flow.fail(error);
        engine.store().completed(flow);
        replyAndClose(ctx, reply(replyCode(error.kind()), null));
        return;
      }
      InetSocketAddress bound = r.connection().channel().localAddress() instanceof InetSocketAddress a ? a : null;
      ctx.writeAndFlush(Unpooled.wrappedBuffer(reply(REP_SUCCEEDED, bound)));
      TunnelRelay.start(engine, flow, ctx.channel(), r.connection(), null);
      ctx.pipeline().remove(this); // bytes the client sent meanwhile go to the tunnel first
    });
  }

  /** The SOCKS reply code for a connect failure. */
  static int replyCode(FlowError.Kind kind) {
    return switch (kind) {
      case DNS -> REP_HOST_UNREACHABLE;
      case CONNECT_REFUSED -> REP_CONNECTION_REFUSED;
      case CONNECT_TIMEOUT -> REP_TTL_EXPIRED;
      case CONNECT -> REP_NETWORK_UNREACHABLE;
      default -> REP_GENERAL_FAILURE;
    };
  }

  /** {@code VER REP RSV ATYP BND.ADDR BND.PORT}; {@code 0.0.0.0:0} when {@code bound} is null. */
  static byte[] reply(int code, InetSocketAddress bound) {
    byte[] addr = bound == null || bound.getAddress() == null ? new byte[4] : bound.getAddress().getAddress();
    int port = bound == null ? 0 : bound.getPort();
    byte[] out = new byte[6 + addr.length];
    out[0] = VERSION;
    out[1] = (byte) code;
    out[3] = (byte) (addr.length == 16 ? ATYP_IPV6 : ATYP_IPV4);
    System.arraycopy(addr, 0, out, 4, addr.length);
    out[4 + addr.length] = (byte) (port >> 8);
    out[5 + addr.length] = (byte) port;
    return out;
  }

  private void replyAndClose(ChannelHandlerContext ctx, byte[] reply) {
    state = State.CLOSED;
    if (timer != null) {
      timer.cancel(false);
    }
    ctx.writeAndFlush(Unpooled.wrappedBuffer(reply)).addListener(ChannelFutureListener.CLOSE);
  }

  private void close(ChannelHandlerContext ctx) {
    state = State.CLOSED;
    ctx.close();
  }

  private static InetSocketAddress remote(ChannelHandlerContext ctx) {
    return ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a : null;
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    if (timer != null) {
      timer.cancel(false);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (timer != null) {
      timer.cancel(false);
    }
    if (state != State.CONNECTING) {
      state = State.CLOSED;
    }
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    close(ctx);
  }
}
