package dev.loupe.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.LeafCertificate;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.http3.DefaultHttp3DataFrame;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3DataFrame;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.http3.Http3RequestStreamInboundHandler;
import io.netty.handler.codec.http3.Http3ServerConnectionHandler;
import io.netty.handler.codec.quic.InsecureQuicTokenHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LoadGen {@code --h3} against a real in-process Netty HTTP/3 server on 127.0.0.1 (UDP): it
 * completes GETs and POSTs without errors, the server saw what LoadGen counted, and a
 * certificate that is not for the host, or not from the trusted CA, fails every handshake.
 */
class LoadGenHttp3Test {
  private static final byte[] BODY = "hello, world\n".getBytes(StandardCharsets.US_ASCII);

  @TempDir
  Path dir;

  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final AtomicLong served = new AtomicLong();
  /** Request body sizes of the requests answered, by kind: all equal to this, or not. */
  private volatile long expectedBody;
  private final AtomicLong wrongBodies = new AtomicLong();

  @AfterEach
  void stop() throws Exception {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  // 2 s of warm-up: the first QUIC handshake of a JVM (class loading, BoringSSL) took over 1.3 s on a
  // loaded 2-core box, and a 0.3 s warm-up + 1 s window then counted nothing
  @Test
  void getCompletesWithoutErrorsAndChecksTheCertificate() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir.resolve("ca"));
    int port = startServer(ca.leafFor("127.0.0.1"));

    String json = LoadGen.run(LoadOptions.parse(new String[] {"https://127.0.0.1:" + port + "/13", "--h3",
        "-c", "2", "-m", "4", "-t", "1", "-D", "2", "--warmup", "2", "--cacert", ca.certificatePath().toString()}));

    assertEquals("h3", string(json, "protocol"), json);
    assertEquals(0, number(json, "errors_total"), json);
    long requests = number(json, "requests");
    assertTrue(requests > 0, json);
    assertEquals(requests * BODY.length, number(json, "bytes"), json);
    assertTrue(served.get() >= requests, "server answered " + served.get() + ", LoadGen counted " + json);
  }

  @Test
  void postSendsTheWholeBodyOnEveryStream() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir.resolve("ca"));
    int port = startServer(ca.leafFor("127.0.0.1"));
    expectedBody = 70000;

    String json = LoadGen.run(LoadOptions.parse(new String[] {"https://127.0.0.1:" + port + "/post", "--h3",
        "-c", "1", "-m", "2", "-t", "1", "-D", "2", "--warmup", "2", "--method", "POST", "--body-size",
        "70000", "--cacert", ca.certificatePath().toString()}));

    assertEquals(0, number(json, "errors_total"), json);
    assertTrue(number(json, "requests") > 0, json);
    assertTrue(served.get() > 0);
    assertEquals(0, wrongBodies.get(), "every answered POST carried the whole 70,000-byte body");
  }

  @Test
  void aCertificateForAnotherHostFailsTheHandshake() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir.resolve("ca"));
    int port = startServer(ca.leafFor("other.test"));

    String json = LoadGen.run(LoadOptions.parse(new String[] {"https://127.0.0.1:" + port + "/13", "--h3",
        "-c", "1", "-t", "1", "-D", "0.5", "--warmup", "0", "--cacert", ca.certificatePath().toString()}));

    assertEquals(0, number(json, "requests"), json);
    assertTrue(tlsErrors(json) > 0, json);
    assertEquals(0, served.get());
  }

  @Test
  void aCertificateFromAnUntrustedCaFailsTheHandshake() throws Exception {
    CertificateAuthority serverCa = CertificateAuthority.loadOrCreate(dir.resolve("server-ca"));
    CertificateAuthority trusted = CertificateAuthority.loadOrCreate(dir.resolve("other-ca"));
    int port = startServer(serverCa.leafFor("127.0.0.1"));

    String json = LoadGen.run(LoadOptions.parse(new String[] {"https://127.0.0.1:" + port + "/13", "--h3",
        "-c", "1", "-t", "1", "-D", "0.5", "--warmup", "0", "--cacert", trusted.certificatePath().toString()}));

    assertEquals(0, number(json, "requests"), json);
    assertTrue(tlsErrors(json) > 0, json);
    assertEquals(0, served.get());
  }

  /** An HTTP/3 server answering every request with 200 and {@link #BODY}; returns its UDP port. */
  private int startServer(LeafCertificate leaf) throws Exception {
    QuicSslContext ssl = QuicSslContextBuilder.forServer(leaf.privateKey(), null,
            leaf.chain().toArray(new X509Certificate[0]))
        .applicationProtocols("h3").build();
    ChannelHandler codec = Http3.newQuicServerCodecBuilder()
        .sslContext(ssl)
        .maxIdleTimeout(10, TimeUnit.SECONDS)
        .initialMaxData(16L << 20)
        .initialMaxStreamDataBidirectionalLocal(1L << 20)
        .initialMaxStreamDataBidirectionalRemote(1L << 20)
        .initialMaxStreamsBidirectional(100)
        .tokenHandler(InsecureQuicTokenHandler.INSTANCE)
        .handler(new ChannelInitializer<QuicChannel>() {
          @Override
          protected void initChannel(QuicChannel ch) {
            ch.pipeline().addLast(new Http3ServerConnectionHandler(new ChannelInitializer<QuicStreamChannel>() {
              @Override
              protected void initChannel(QuicStreamChannel stream) {
                stream.pipeline().addLast(new Answer());
              }
            }));
          }
        })
        .build();
    Channel udp = new Bootstrap().group(group).channel(NioDatagramChannel.class).handler(codec)
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    return ((InetSocketAddress) udp.localAddress()).getPort();
  }

  private final class Answer extends Http3RequestStreamInboundHandler {
    private long received;

    @Override
    protected void channelRead(ChannelHandlerContext ctx, Http3HeadersFrame frame) {
      ReferenceCountUtil.release(frame);
    }

    @Override
    protected void channelRead(ChannelHandlerContext ctx, Http3DataFrame frame) {
      received += frame.content().readableBytes();
      frame.release();
    }

    @Override
    protected void channelInputClosed(ChannelHandlerContext ctx) {
      if (received != expectedBody) {
        wrongBodies.incrementAndGet();
      }
      DefaultHttp3HeadersFrame head = new DefaultHttp3HeadersFrame();
      head.headers().status("200").setInt("content-length", BODY.length);
      ctx.write(head);
      ctx.writeAndFlush(new DefaultHttp3DataFrame(Unpooled.wrappedBuffer(BODY)))
          .addListener(QuicStreamChannel.SHUTDOWN_OUTPUT);
      served.incrementAndGet();
    }
  }

  private static long number(String json, String key) {
    Matcher m = Pattern.compile("\"" + key + "\":(\\d+)").matcher(json);
    assertTrue(m.find(), key + " in " + json);
    return Long.parseLong(m.group(1));
  }

  private static long tlsErrors(String json) {
    Matcher m = Pattern.compile("\"tls\":(\\d+)").matcher(json);
    assertTrue(m.find(), json);
    return Long.parseLong(m.group(1));
  }

  private static String string(String json, String key) {
    Matcher m = Pattern.compile("\"" + key + "\":\"([^\"]*)\"").matcher(json);
    assertTrue(m.find(), key + " in " + json);
    return m.group(1);
  }
}
