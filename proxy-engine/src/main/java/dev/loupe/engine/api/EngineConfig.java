package dev.loupe.engine.api;

import dev.loupe.engine.flow.CapturePolicy;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Everything the engine needs to run, immutable. Build with {@link #builder(CertificateSource)}.
 *
 * @param listen             where the proxy listens (default 127.0.0.1:8080)
 * @param certificates       certificates for intercepted hosts
 * @param trustedCas         CAs trusted for upstream verification in addition to the JDK's
 * @param insecure           skip upstream certificate verification entirely
 * @param ignoreHosts        CONNECT targets matching this are tunnelled without decryption (null: none)
 * @param capture            body capture policy
 * @param limits             HTTP/1.1 parser limits
 * @param connectTimeout     TCP connect timeout to origins
 * @param responseTimeout    how long to wait for an origin's response head
 * @param poolIdleTimeout    how long an idle upstream connection stays in the pool
 * @param maxIdlePerOrigin   idle upstream connections kept per origin and I/O thread
 * @param ioThreads          event loop threads (0: Netty's default, two per core)
 * @param reverse            reverse mode's origin, or null for the regular (explicit proxy) mode
 * @param upstreamProtocol   what the server leg speaks (default AUTO: HTTP/3 to https origins that
 *                           advertised it by Alt-Svc, else HTTP/2 when the client spoke it and the
 *                           origin agrees by ALPN, else HTTP/1.1)
 * @param upstreamProxy      an HTTP proxy every origin connection goes through (a CONNECT tunnel per
 *                           connection), or null to connect directly
 * @param http3HandshakeBudget AUTO: how long a request waits for a QUIC connection to an origin that
 *                           advertised HTTP/3 before it goes over TCP instead (default 500 ms)
 * @param connectStrategy    regular mode, intercepted CONNECT: whether the origin is dialled before
 *                           the client gets its {@code 200} ({@link ConnectStrategy#EAGER}, default)
 * @param proxyAuth          regular mode: the credentials clients must present (HTTP 407 / SOCKS5
 *                           username and password), or null for none
 * @param setup              regular mode: the CA downloads the setup page serves ({@code http://loupe.setup/});
 *                           null: the page says none are configured
 * @param socks              regular mode: an extra listener speaking only SOCKS5, or null (SOCKS5 is
 *                           always served on {@link #listen} too, told apart by its first byte)
 */
public record EngineConfig(
    InetSocketAddress listen,
    CertificateSource certificates,
    List<X509Certificate> trustedCas,
    boolean insecure,
    Pattern ignoreHosts,
    CapturePolicy capture,
    Limits limits,
    Duration connectTimeout,
    Duration responseTimeout,
    Duration poolIdleTimeout,
    int maxIdlePerOrigin,
    int ioThreads,
    UpstreamProtocol upstreamProtocol,
    Reverse reverse,
    UpstreamProxy upstreamProxy,
    Duration http3HandshakeBudget,
    ConnectStrategy connectStrategy,
    ProxyAuth proxyAuth,
    SetupDownloads setup,
    InetSocketAddress socks) {

  /**
   * When Loupe connects to the origin of an intercepted CONNECT (mitmproxy's
   * {@code connection_strategy}).
   */
  public enum ConnectStrategy {
    /**
     * Dial the origin (DNS, TCP, any upstream proxy) before answering {@code 200 Connection
     * established}: an origin that cannot be reached is a {@code 502} naming the cause, which the
     * client shows as an HTTP error; the connection is then used for the tunnel's first request.
     */
    EAGER,
    /**
     * Answer {@code 200} at once and dial when the first request inside the tunnel arrives: a
     * failure is reported on that request (a 502 inside the tunnel) instead.
     */
    LAZY
  }

  /**
   * An HTTP proxy Loupe itself goes through (a corporate proxy): {@code http://[user:pass@]host:port}.
   * Each origin connection is a CONNECT tunnel through it; TLS to the origin runs inside the tunnel,
   * so the origin's certificate is verified as usual.
   *
   * @param username null without credentials (then {@code password} is null too)
   */
  public record UpstreamProxy(String host, int port, String username, String password) {
    public UpstreamProxy {
      Objects.requireNonNull(host, "host");
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("upstream proxy port out of range: " + port);
      }
    }

    /** Parses {@code http://[user:pass@]host:port} (scheme optional; port required). */
    public static UpstreamProxy parse(String text) {
      String s = text.trim();
      java.net.URI uri;
      try {
        uri = new java.net.URI(s.contains("://") ? s : "http://" + s);
      } catch (java.net.URISyntaxException e) {
        throw new IllegalArgumentException("not a proxy URL: '" + text + "' (expected http://host:port)");
      }
      if (!"http".equalsIgnoreCase(uri.getScheme())) {
        throw new IllegalArgumentException("upstream proxy must be an http:// proxy, not '" + uri.getScheme() + "'");
      }
      if (uri.getHost() == null || uri.getPort() < 0) {
        throw new IllegalArgumentException("upstream proxy needs a host and a port: '" + text + "' (e.g. http://proxy.corp:3128)");
      }
      if (uri.getRawPath() != null && !uri.getRawPath().isEmpty() && !uri.getRawPath().equals("/")) {
        throw new IllegalArgumentException("upstream proxy URL has a path: '" + text + "'");
      }
      String user = null;
      String pass = null;
      if (uri.getUserInfo() != null) {
        int colon = uri.getUserInfo().indexOf(':');
        user = colon < 0 ? uri.getUserInfo() : uri.getUserInfo().substring(0, colon);
        pass = colon < 0 ? "" : uri.getUserInfo().substring(colon + 1);
      }
      String host = uri.getHost().startsWith("[") ? uri.getHost().substring(1, uri.getHost().length() - 1) : uri.getHost();
      return new UpstreamProxy(host, uri.getPort(), user, pass);
    }

    /** {@code host:port} (never the credentials). */
    @Override
    public String toString() {
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
  }

  /**
   * Reverse mode: every request on the listener goes to this origin.
   *
   * @param scheme {@code http} or {@code https}
   * @param host   origin host (no brackets)
   * @param port   origin port
   */
  public record Reverse(String scheme, String host, int port) {
    public Reverse {
      if (!scheme.equals("http") && !scheme.equals("https")) {
        throw new IllegalArgumentException("reverse mode needs an http:// or https:// origin, got " + scheme);
      }
      Objects.requireNonNull(host, "host");
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("invalid origin port " + port);
      }
    }

    /** Parses {@code https://host[:port][/]}. */
    public static Reverse parse(String url) {
      java.net.URI u;
      try {
        u = new java.net.URI(url);
      } catch (java.net.URISyntaxException e) {
        throw new IllegalArgumentException("invalid origin URL '" + url + "': " + e.getMessage());
      }
      if (u.getScheme() == null || u.getHost() == null) {
        throw new IllegalArgumentException("expected reverse:http(s)://host[:port], got '" + url + "'");
      }
      if (u.getRawPath() != null && !u.getRawPath().isEmpty() && !u.getRawPath().equals("/")) {
        throw new IllegalArgumentException("the origin URL may not have a path: '" + url + "'");
      }
      String scheme = u.getScheme().toLowerCase(java.util.Locale.ROOT);
      String host = u.getHost();
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port = u.getPort() > 0 ? u.getPort() : scheme.equals("https") ? 443 : 80;
      return new Reverse(scheme, host.toLowerCase(java.util.Locale.ROOT), port);
    }

    /** The name on Loupe's certificate when the client sends no SNI. */
    public String certificateHost() {
      return host;
    }

    @Override
    public String toString() {
      return scheme + "://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
  }

  /** {@code --upstream-protocol}: the server leg's protocol. */
  public enum UpstreamProtocol {
    /**
     * HTTP/3 to https origins that advertised it ({@code Alt-Svc: h3}), with a fall back to TCP when
     * QUIC fails or is slow; otherwise offer HTTP/2 to the origin when the client spoke HTTP/2, and
     * fall back to HTTP/1.1.
     */
    AUTO,
    /** Always HTTP/1.1. */
    H1,
    /** Always HTTP/2 (h2 by ALPN over TLS, h2c prior knowledge in cleartext); fail if the origin cannot. */
    H2,
    /**
     * HTTP/3 (QUIC) to {@code https} origins, on the origin's port over UDP; fail if the origin
     * cannot. Cleartext {@code http} origins stay on HTTP/1.1 (HTTP/3 has no cleartext form).
     */
    H3
  }

  /**
   * Parser limits: a request beyond them gets a 400 and the connection is closed.
   *
   * @param maxInitialLineLength request/status line
   * @param maxHeaderSize        the whole header section
   * @param maxChunkSize         largest body piece handed on at once (not a body size limit)
   */
  public record Limits(int maxInitialLineLength, int maxHeaderSize, int maxChunkSize) {
    public static Limits defaults() {
      return new Limits(16 * 1024, 64 * 1024, 64 * 1024);
    }
  }

  public EngineConfig {
    Objects.requireNonNull(listen, "listen");
    Objects.requireNonNull(certificates, "certificates");
    trustedCas = List.copyOf(trustedCas);
    Objects.requireNonNull(capture, "capture");
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(responseTimeout, "responseTimeout");
    Objects.requireNonNull(poolIdleTimeout, "poolIdleTimeout");
    Objects.requireNonNull(upstreamProtocol, "upstreamProtocol");
    Objects.requireNonNull(http3HandshakeBudget, "http3HandshakeBudget");
    Objects.requireNonNull(connectStrategy, "connectStrategy");
    if (http3HandshakeBudget.isNegative() || http3HandshakeBudget.isZero()) {
      throw new IllegalArgumentException("the HTTP/3 handshake budget must be positive: " + http3HandshakeBudget);
    }
    if (upstreamProxy != null && upstreamProtocol == UpstreamProtocol.H3) {
      throw new IllegalArgumentException("HTTP/3 to origins (QUIC, over UDP) cannot go through the upstream HTTP proxy "
          + upstreamProxy + "; use --upstream-protocol auto, h1 or h2 with an upstream proxy");
    }
  }

  public static Builder builder(CertificateSource certificates) {
    return new Builder(certificates);
  }

  public Builder toBuilder() {
    Builder b = new Builder(certificates);
    b.listen = listen;
    b.trustedCas = new ArrayList<>(trustedCas);
    b.insecure = insecure;
    b.ignoreHosts = ignoreHosts;
    b.capture = capture;
    b.limits = limits;
    b.connectTimeout = connectTimeout;
    b.responseTimeout = responseTimeout;
    b.poolIdleTimeout = poolIdleTimeout;
    b.maxIdlePerOrigin = maxIdlePerOrigin;
    b.ioThreads = ioThreads;
    b.upstreamProtocol = upstreamProtocol;
    b.reverse = reverse;
    b.upstreamProxy = upstreamProxy;
    b.http3HandshakeBudget = http3HandshakeBudget;
    b.connectStrategy = connectStrategy;
    b.proxyAuth = proxyAuth;
    b.setup = setup;
    b.socks = socks;
    return b;
  }

  /** Whether {@code host} should be tunnelled without interception. */
  public boolean ignored(String host, int port) {
    if (ignoreHosts == null) {
      return false;
    }
    return ignoreHosts.matcher(host).find() || ignoreHosts.matcher(host + ":" + port).find();
  }

  /** Builder with safe defaults: loopback, verified upstreams, 1 MiB capture cap with spill. */
  public static final class Builder {
    private final CertificateSource certificates;
    private InetSocketAddress listen = new InetSocketAddress("127.0.0.1", 8080);
    private List<X509Certificate> trustedCas = new ArrayList<>();
    private boolean insecure;
    private Pattern ignoreHosts;
    private CapturePolicy capture = CapturePolicy.defaults();
    private Limits limits = Limits.defaults();
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration responseTimeout = Duration.ofSeconds(120);
    private Duration poolIdleTimeout = Duration.ofSeconds(60);
    private int maxIdlePerOrigin = 32;
    private int ioThreads;
    private UpstreamProtocol upstreamProtocol = UpstreamProtocol.AUTO;
    private Reverse reverse;
    private UpstreamProxy upstreamProxy;
    private Duration http3HandshakeBudget = Duration.ofMillis(500);
    private ConnectStrategy connectStrategy = ConnectStrategy.EAGER;
    private ProxyAuth proxyAuth;
    private SetupDownloads setup;
    private InetSocketAddress socks;

    private Builder(CertificateSource certificates) {
      this.certificates = Objects.requireNonNull(certificates, "certificates");
    }

    public Builder listen(InetSocketAddress a) { listen = a; return this; }
    public Builder trustCa(X509Certificate ca) { trustedCas.add(ca); return this; }
    public Builder trustCas(List<X509Certificate> cas) { trustedCas.addAll(cas); return this; }
    public Builder insecure(boolean b) { insecure = b; return this; }
    public Builder ignoreHosts(Pattern p) { ignoreHosts = p; return this; }
    public Builder capture(CapturePolicy p) { capture = p; return this; }
    public Builder limits(Limits l) { limits = l; return this; }
    public Builder connectTimeout(Duration d) { connectTimeout = d; return this; }
    public Builder responseTimeout(Duration d) { responseTimeout = d; return this; }
    public Builder poolIdleTimeout(Duration d) { poolIdleTimeout = d; return this; }
    public Builder maxIdlePerOrigin(int n) { maxIdlePerOrigin = n; return this; }
    public Builder ioThreads(int n) { ioThreads = n; return this; }
    public Builder upstreamProtocol(UpstreamProtocol p) { upstreamProtocol = p; return this; }
    public Builder reverse(Reverse r) { reverse = r; return this; }
    public Builder upstreamProxy(UpstreamProxy p) { upstreamProxy = p; return this; }
    public Builder http3HandshakeBudget(Duration d) { http3HandshakeBudget = d; return this; }
    public Builder connectStrategy(ConnectStrategy s) { connectStrategy = s; return this; }
    public Builder proxyAuth(ProxyAuth a) { proxyAuth = a; return this; }
    public Builder setup(SetupDownloads d) { setup = d; return this; }
    public Builder socks(InetSocketAddress a) { socks = a; return this; }

    public EngineConfig build() {
      return new EngineConfig(listen, certificates, trustedCas, insecure, ignoreHosts, capture, limits,
          connectTimeout, responseTimeout, poolIdleTimeout, maxIdlePerOrigin, ioThreads, upstreamProtocol, reverse,
          upstreamProxy, http3HandshakeBudget, connectStrategy, proxyAuth, setup, socks);
    }
  }
}
