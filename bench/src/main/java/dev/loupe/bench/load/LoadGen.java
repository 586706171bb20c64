package dev.loupe.bench.load;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.concurrent.Future;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.HdrHistogram.Histogram;

/**
 * Loupe's HTTP load generator, for what h2load and wrk cannot do: load through an explicit
 * proxy (CONNECT, then TLS and HTTP/1.1 or HTTP/2 inside the tunnel -- the path of every
 * system-proxy user -- or absolute-form requests to a plain forward proxy), and HTTP/3 over
 * QUIC ({@code --h3}: {@code -c} QUIC connections, each on its own UDP socket, {@code -m}
 * request streams in flight on each). It also runs
 * direct, so it can be checked against h2load on the same arm (bench/README.md).
 *
 * <p>Closed loop: {@code -c} connections, each keeping one request (HTTP/1.1) or {@code -m}
 * streams (HTTP/2) in flight; a new request goes out as soon as one ends. Epoll when available,
 * {@code -t} event loops, OpenSSL (netty-tcnative) when available, pooled buffers, bodies
 * counted and dropped. After {@code --warmup} seconds it measures for {@code -D} seconds, then
 * prints one JSON line on standard output:
 *
 * <pre>
 * {"rps":..., "requests":..., "duration_s":..., "p50_ms":..., "p90_ms":..., "p99_ms":...,
 *  "max_ms":..., "mean_ms":..., "bytes":..., "mbps":..., "errors_total":...,
 *  "errors":{"non2xx":..,"connect":..,"proxy":..,"tls":..,"closed":..,"reset":..,"timeout":..,"other":..},
 *  ...}
 * </pre>
 *
 * Requests and latency count responses (2xx) that ended inside the measured window; errors
 * count from the start (warm-up included), so an error rate is conservative.
 */
public final class LoadGen {
  private LoadGen() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 1 && "--serve".equals(args[0])) {
      serve();
      return;
    }
    LoadOptions o;
    try {
      o = LoadOptions.parse(args);
    } catch (LoadOptions.UsageException e) {
      PrintStream err = System.err;
      if (!e.getMessage().isEmpty()) {
        err.println("LoadGen: " + e.getMessage());
      }
      err.print(LoadOptions.USAGE);
      System.exit(e.getMessage().isEmpty() ? 0 : 2);
      return;
    } catch (NumberFormatException e) {
      System.err.println("LoadGen: bad number: " + e.getMessage());
      System.exit(2);
      return;
    }
    System.out.println(run(o));
  }

  /**
   * {@code --serve}: one run per line of standard input (the same arguments, separated by
   * spaces), one JSON line out per run ({@code {"error":...}} for a bad line), until end of
   * input. The probe keeps one generator JVM for the whole session so its JIT is warm.
   */
  private static void serve() throws IOException, InterruptedException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = System.out;
    String line;
    while ((line = in.readLine()) != null) {
      line = line.trim();
      if (line.isEmpty()) {
        continue;
      }
      String result;
      try {
        result = run(LoadOptions.parse(line.split("\\s+")));
      } catch (RuntimeException | SSLException e) {
        StringBuilder sb = new StringBuilder("{");
        string(sb, "error", String.valueOf(e));
        sb.setLength(sb.length() - 1);
        result = sb.append('}').toString();
      }
      out.println(result);
      out.flush();
    }
  }

  static String run(LoadOptions o) throws InterruptedException, SSLException {
    boolean epoll = Epoll.isAvailable();
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    Class<? extends Channel> channelType = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    Class<? extends Channel> datagramType = epoll ? EpollDatagramChannel.class : NioDatagramChannel.class;
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(o.threads, io);
    SslContext ssl = o.tls && !o.h3 ? sslContext(o) : null;
    QuicSslContext quicSsl = o.h3 ? quicSslContext(o) : null;
    ByteBuf body = null;
    if ("POST".equals(o.method)) {
      byte[] bytes = new byte[o.bodySize];
      ThreadLocalRandom.current().nextBytes(bytes);
      body = Unpooled.unreleasableBuffer(Unpooled.directBuffer(o.bodySize).writeBytes(bytes));
    }
    LoadClock clock = new LoadClock(o.warmupSeconds, o.durationSeconds);
    List<LoadClient> conns = new ArrayList<>(o.connections);
    for (int i = 0; i < o.connections; i++) {
      LoadClient c = o.h3
          ? new QuicLoadConnection(o, clock, group.next(), datagramType, quicSsl, body)
          : new LoadConnection(o, clock, group.next(), channelType, ssl, body);
      conns.add(c);
      c.loop().execute(c::connect);
    }
    long sleepNanos = clock.measureEnd - System.nanoTime();
    if (sleepNanos > 0) {
      TimeUnit.NANOSECONDS.sleep(sleepNanos);
    }
    clock.stop();
    long timeoutBefore = System.nanoTime() - (long) (o.timeoutSeconds * 1e9);
    List<Future<?>> done = new ArrayList<>();
    for (LoadClient c : conns) {
      done.add(c.loop().submit(() -> c.finish(timeoutBefore)));
    }
    for (Future<?> f : done) {
      f.await(5, TimeUnit.SECONDS);
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);

    LoadStats total = new LoadStats();
    Throwable firstError = null;
    for (LoadClient c : conns) {
      total.add(c.stats());
      if (firstError == null) {
        firstError = c.firstError();
      }
    }
    return json(o, total, epoll, ssl, firstError);
  }

  private static SslContext sslContext(LoadOptions o) throws SSLException {
    SslProvider provider = OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    SslContextBuilder b = SslContextBuilder.forClient().sslProvider(provider);
    if (o.caFile != null) {
      b.trustManager(o.caFile.toFile());
    } else {
      b.trustManager(InsecureTrustManagerFactory.INSTANCE);
    }
    if (o.h2) {
      b.ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE);
    }
    b.applicationProtocolConfig(new ApplicationProtocolConfig(
        ApplicationProtocolConfig.Protocol.ALPN,
        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
        o.h2 ? ApplicationProtocolNames.HTTP_2 : ApplicationProtocolNames.HTTP_1_1));
    return b.build();
  }

  /** HTTP/3: BoringSSL inside QUIC; with --cacert the certificate and the host name are checked. */
  private static QuicSslContext quicSslContext(LoadOptions o) {
    QuicSslContextBuilder b = QuicSslContextBuilder.forClient().applicationProtocols("h3");
    if (o.caFile != null) {
      // the QUIC client checks no host name unless told to (Netty 4.2.18)
      // the PEM file read as certificates, as Loupe's own HTTP/3 tests pass them
      b.trustManager(readCertificates(o.caFile)).endpointIdentificationAlgorithm("HTTPS");
    } else {
      b.trustManager(InsecureTrustManagerFactory.INSTANCE);
    }
    return b.build();
  }

  private static X509Certificate[] readCertificates(Path pem) {
    try (InputStream in = Files.newInputStream(pem)) {
      return CertificateFactory.getInstance("X.509").generateCertificates(in).toArray(new X509Certificate[0]);
    } catch (IOException | CertificateException e) {
      throw new IllegalArgumentException("cannot read --cacert " + pem + ": " + e.getMessage(), e);
    }
  }

  private static String json(LoadOptions o, LoadStats s, boolean epoll, SslContext ssl, Throwable firstError) {
    Histogram h = s.latencyMicros;
    boolean any = h.getTotalCount() > 0;
    double dur = o.durationSeconds;
    StringBuilder sb = new StringBuilder(512).append('{');
    field(sb, "rps", s.requests / dur);
    field(sb, "requests", s.requests);
    field(sb, "duration_s", dur);
    field(sb, "p50_ms", any ? h.getValueAtPercentile(50) / 1000.0 : Double.NaN);
    field(sb, "p90_ms", any ? h.getValueAtPercentile(90) / 1000.0 : Double.NaN);
    field(sb, "p99_ms", any ? h.getValueAtPercentile(99) / 1000.0 : Double.NaN);
    field(sb, "max_ms", any ? h.getMaxValue() / 1000.0 : Double.NaN);
    field(sb, "mean_ms", any ? h.getMean() / 1000.0 : Double.NaN);
    field(sb, "bytes", s.bodyBytes);
    field(sb, "mbps", s.bodyBytes / dur / 1e6);
    field(sb, "errors_total", s.errorTotal());
    sb.append("\"errors\":{");
    boolean first = true;
    for (Map.Entry<LoadStats.ErrorKind, Long> e : s.errorMap().entrySet()) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      sb.append('"').append(e.getKey().name().toLowerCase(Locale.ROOT)).append("\":").append(e.getValue());
    }
    sb.append("},");
    string(sb, "protocol", o.h3 ? "h3" : o.h2 ? "h2" : "h1");
    string(sb, "target", o.target.toString());
    string(sb, "proxy", o.viaProxy() ? o.proxyHost + ":" + o.proxyPort : "");
    field(sb, "connections", o.connections);
    field(sb, "streams", o.streams);
    field(sb, "threads", o.threads);
    string(sb, "transport", (epoll ? "epoll" : "nio") + (o.h3 ? "+quic" : ""));
    string(sb, "tls", o.h3 ? "boringssl-quic" : ssl == null ? "" : ssl.isClient() && OpenSsl.isAvailable() ? "openssl" : "jdk");
    string(sb, "first_error", firstError == null ? "" : String.valueOf(firstError));
    sb.setLength(sb.length() - 1);
    return sb.append('}').toString();
  }

  private static void field(StringBuilder sb, String k, double v) {
    sb.append('"').append(k).append("\":");
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      sb.append("NaN");
    } else {
      sb.append(String.format(Locale.ROOT, "%.3f", v));
    }
    sb.append(',');
  }

  private static void field(StringBuilder sb, String k, long v) {
    sb.append('"').append(k).append("\":").append(v).append(',');
  }

  private static void string(StringBuilder sb, String k, String v) {
    sb.append('"').append(k).append("\":\"");
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20) {
        sb.append(' ');
      } else {
        sb.append(c);
      }
    }
    sb.append("\",");
  }
}
