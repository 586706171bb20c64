package dev.loupe.bench.load;

import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Command line of {@link LoadGen}. Immutable once parsed.
 *
 * <pre>
 * LoadGen URL [--proxy HOST:PORT] [--h1|--h2|--h3] [-c CONNS] [-m STREAMS] [-t THREADS]
 *         [-D SECONDS] [--warmup SECONDS] [--method GET|POST] [--body-size BYTES]
 *         [--insecure | --cacert FILE] [--timeout SECONDS]
 * </pre>
 */
final class LoadOptions {
  final URI target;
  final boolean tls;
  final String host;
  final int port;
  final String path;
  /** Explicit proxy: CONNECT then TLS (or cleartext) inside for https, absolute-form for http. */
  final String proxyHost;

  final int proxyPort;
  final boolean h2;
  /** HTTP/3 over QUIC (https only, no proxy): -c QUIC connections, -m request streams each. */
  final boolean h3;
  final int connections;
  final int streams;
  final int threads;
  final double durationSeconds;
  final double warmupSeconds;
  final String method;
  final int bodySize;
  final boolean insecure;
  final Path caFile;
  final double timeoutSeconds;

  private LoadOptions(Builder b) {
    this.target = b.target;
    this.tls = "https".equals(b.target.getScheme());
    this.host = b.target.getHost();
    this.port = b.target.getPort() > 0 ? b.target.getPort() : (tls ? 443 : 80);
    String p = b.target.getRawPath();
    if (p == null || p.isEmpty()) {
      p = "/";
    }
    if (b.target.getRawQuery() != null) {
      p = p + "?" + b.target.getRawQuery();
    }
    this.path = p;
    this.proxyHost = b.proxyHost;
    this.proxyPort = b.proxyPort;
    this.h2 = "h2".equals(b.proto);
    this.h3 = "h3".equals(b.proto);
    this.connections = b.connections;
    this.streams = h2 || h3 ? b.streams : 1;
    this.threads = Math.max(1, Math.min(b.threads, b.connections));
    this.durationSeconds = b.duration;
    this.warmupSeconds = b.warmup;
    this.method = b.method;
    this.bodySize = b.bodySize;
    this.insecure = b.insecure;
    this.caFile = b.caFile;
    this.timeoutSeconds = b.timeout;
  }

  boolean viaProxy() {
    return proxyHost != null;
  }

  /** host:port as it goes in Host, :authority and CONNECT. */
  String authority() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return h + ":" + port;
  }

  static final String USAGE =
      "usage: LoadGen URL [--proxy HOST:PORT] [--h1|--h2|--h3] [-c CONNS] [-m STREAMS] [-t THREADS]\n"
          + "               [-D SECONDS] [--warmup SECONDS] [--method GET|POST] [--body-size BYTES]\n"
          + "               [--insecure | --cacert FILE] [--timeout SECONDS]\n"
          + "Prints one JSON line: rps, p50/p90/p99/max latency (ms), bytes, errors by kind.\n"
          + "  URL             http:// or https:// target\n"
          + "  --proxy H:P     explicit proxy: CONNECT + TLS inside for https, absolute-form for http\n"
          + "  --h1 | --h2     protocol (ALPN over TLS; h2c prior knowledge over cleartext); default h1\n"
          + "  --h3            HTTP/3 over QUIC (UDP to the URL's port; https only, no --proxy)\n"
          + "  -c              connections (default 16)\n"
          + "  -m              concurrent streams per connection, h2 and h3 (default 1)\n"
          + "  -t              event loops (default: number of cores)\n"
          + "  -D              measured seconds (default 10)\n"
          + "  --warmup        unmeasured seconds before -D (default 2)\n"
          + "  --method        GET (default) or POST\n"
          + "  --body-size     request body bytes for POST (default 65536)\n"
          + "  --insecure      trust any certificate (default when no --cacert)\n"
          + "  --cacert FILE   trust the CA certificates in this PEM file\n"
          + "  --timeout       a request in flight longer than this at the end is a timeout (default 10)\n";

  static LoadOptions parse(String[] args) {
    Builder b = new Builder();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "-h", "--help" -> throw new UsageException("");
        case "--proxy" -> {
          String v = value(args, ++i, a);
          int colon = v.lastIndexOf(':');
          if (colon <= 0) {
            throw new UsageException("--proxy wants HOST:PORT");
          }
          b.proxyHost = v.substring(0, colon).replace("[", "").replace("]", "");
          b.proxyPort = Integer.parseInt(v.substring(colon + 1));
        }
        case "--h1" -> b.proto = "h1";
        case "--h2" -> b.proto = "h2";
        case "--h3" -> b.proto = "h3";
        case "-c" -> b.connections = Integer.parseInt(value(args, ++i, a));
        case "-m" -> b.streams = Integer.parseInt(value(args, ++i, a));
        case "-t" -> b.threads = Integer.parseInt(value(args, ++i, a));
        case "-D" -> b.duration = Double.parseDouble(value(args, ++i, a));
        case "--warmup" -> b.warmup = Double.parseDouble(value(args, ++i, a));
        case "--method" -> b.method = value(args, ++i, a).toUpperCase(Locale.ROOT);
        case "--body-size" -> b.bodySize = Integer.parseInt(value(args, ++i, a));
        case "--insecure", "-k" -> b.insecure = true;
        case "--cacert" -> b.caFile = Path.of(value(args, ++i, a));
        case "--timeout" -> b.timeout = Double.parseDouble(value(args, ++i, a));
        default -> {
          if (a.startsWith("-") || b.target != null) {
            throw new UsageException("unknown argument: " + a);
          }
          b.target = URI.create(a);
        }
      }
    }
    if (b.target == null || b.target.getHost() == null) {
      throw new UsageException("a target URL is required");
    }
    String scheme = b.target.getScheme();
    if (!"http".equals(scheme) && !"https".equals(scheme)) {
      throw new UsageException("URL scheme must be http or https");
    }
    if ("h3".equals(b.proto) && (b.proxyHost != null || !"https".equals(scheme))) {
      throw new UsageException("--h3 wants an https:// URL and no --proxy");
    }
    if (b.proxyHost != null && "http".equals(scheme) && "h2".equals(b.proto)) {
      throw new UsageException("--h2 with an http:// URL through a proxy: a forward proxy takes"
          + " HTTP/1.1 absolute-form requests only");
    }
    if (!"GET".equals(b.method) && !"POST".equals(b.method)) {
      throw new UsageException("--method GET or POST");
    }
    if (b.connections < 1 || b.streams < 1 || b.duration <= 0 || b.warmup < 0) {
      throw new UsageException("-c, -m, -D must be positive");
    }
    if (b.caFile == null) {
      b.insecure = true;
    }
    return new LoadOptions(b);
  }

  private static String value(String[] args, int i, String name) {
    if (i >= args.length) {
      throw new UsageException(name + " needs a value");
    }
    return args[i];
  }

  static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  private static final class Builder {
    URI target;
    String proxyHost;
    int proxyPort;
    String proto = "h1";
    int connections = 16;
    int streams = 1;
    int threads = Runtime.getRuntime().availableProcessors();
    double duration = 10;
    double warmup = 2;
    String method = "GET";
    int bodySize = 65536;
    boolean insecure;
    Path caFile;
    double timeout = 10;
  }
}
