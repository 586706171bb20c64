package dev.loupe.installer;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * Makes the packaged runtime's ahead-of-time cache ({@code lib/app/loupe.aot}, JDK 25+ {@code
 * -XX:AOTCacheOutput}): one training launch of the app image — the window under {@code xvfb-run} when
 * there is no display (if installed), else headless — proxying real load for a few seconds: plain HTTP
 * GETs and POSTs, and HTTPS through CONNECT (intercepted, HTTP/1.1 and HTTP/2 clients) to a local TLS
 * origin. The cache holds the classes the launch loaded and linked and the method profiles of the load,
 * so a fresh Loupe starts sooner and the JIT compiles the relay's hot code early (docs/PERFORMANCE.md,
 * issue 19). The JVM writes it when the launch ends (SIGTERM, as a user's Ctrl+C).
 *
 * <p>The launch runs the image's {@code lib/runtime/bin/java} with the launcher's own options and class
 * path (from {@code Loupe.cfg}) minus the cache options, since a JVM cannot read and write a cache at once.
 * The cache records the jars' and the runtime image's modification times: {@link #fixTimes} sets them to
 * {@link LauncherOptions#AOT_MTIME} first, and {@code loupe-cds.sh} does again where a package installs them.
 *
 * <p>Single-threaded apart from the origins' and the load's threads; writes only into {@code work} and the cache.
 */
final class AotTraining {
  /** How long the load runs: long enough for the relay's methods to be profiled and compiled. */
  private static final Duration LOAD = Duration.ofSeconds(10);
  private static final int CONCURRENCY = 8;
  /**
   * Requests on one raw client connection before it closes and the next opens: the cache then holds the
   * classes of closing connections too, which the JVM otherwise loads when the first client goes away, and
   * that load deoptimised the relay's compiled code (docs/PERFORMANCE.md, issue 19).
   */
  private static final int REQUESTS_PER_CONNECTION = 250;

  private AotTraining() {}

  /**
   * Sets the modification time of the image's jars and its runtime's {@code lib/modules} to
   * {@link LauncherOptions#AOT_MTIME}.
   */
  static void fixTimes(Path image) throws IOException {
    FileTime t = FileTime.from(LauncherOptions.AOT_MTIME, TimeUnit.SECONDS);
    for (String jar : JavaRuntime.jars(image.resolve("lib/app"))) {
      Files.setLastModifiedTime(Path.of(jar), t);
    }
    Files.setLastModifiedTime(image.resolve("lib/runtime/lib/modules"), t);
  }

  /** Trains the app image at {@code image} (its launcher {@code launcherName}) and writes {@code lib/app/loupe.aot}. */
  static void record(Path image, String launcherName, Path work) throws IOException, InterruptedException {
    Files.createDirectories(work);
    fixTimes(image);
    Path appDir = image.resolve("lib/app");
    Path cache = appDir.resolve("loupe.aot");
    Files.deleteIfExists(cache);
    Cfg cfg = Cfg.read(appDir.resolve(launcherName + ".cfg"), appDir);
    List<String> jvm = new ArrayList<>();
    jvm.add(image.resolve("lib/runtime/bin/java").toString());
    for (String o : cfg.options) {
      if (!LauncherOptions.AOT.contains(o.replace(appDir.toString(), "$APPDIR"))) {
        jvm.add(o);
      }
    }
    jvm.addAll(List.of("-XX:AOTCacheOutput=" + cache, "-XX:+UnlockDiagnosticVMOptions", "-XX:-AOTAdapterCaching",
        "-cp", String.join(java.io.File.pathSeparator, cfg.classPath), cfg.mainClass));
    List<String> command = CdsTraining.windowCommand(image.resolve("bin").resolve(launcherName));
    boolean window = command != null;
    List<String> cmd = new ArrayList<>();
    if (window && command.size() > 1) { // xvfb-run ... LAUNCHER: the same display, java in the launcher's place
      cmd.addAll(command.subList(0, command.size() - 1));
    }
    cmd.addAll(jvm);
    Path conf = work.resolve("conf");
    cmd.addAll(List.of("--listen", "127.0.0.1:0", "--confdir", conf.toString(), "--insecure"));
    if (!window) {
      cmd.addAll(List.of("--headless", "-q", "--har", work.resolve("training.har").toString()));
    }
    System.out.println("AOT training (" + (window ? "window" : "headless") + "): " + String.join(" ", cmd));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().remove("JAVA_TOOL_OPTIONS"); // -Xshare or CDS options there would refuse the cache options
    pb.environment().remove("_JAVA_OPTIONS");
    Process p = pb.start();
    try {
      CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();
      Thread reader = new Thread(() -> CdsTraining.readOutput(p.getInputStream(), listening), "aot-training-output");
      reader.setDaemon(true);
      reader.start();
      InetSocketAddress proxy = listening.get(120, TimeUnit.SECONDS);
      load(proxy, conf.resolve("ca-cert.pem"), work);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IOException("AOT training launch did not start listening: " + String.join(" ", cmd), e);
    } finally {
      stop(p);
    }
    if (!Files.isRegularFile(cache) || Files.size(cache) == 0) {
      throw new IOException("the training launch wrote no AOT cache (" + cache + ")");
    }
    System.out.printf("AOT cache: %s, %.1f MB%n", cache, Files.size(cache) / 1e6);
  }

  /** SIGTERM to the JVM only (it writes the cache while exiting: minutes on a busy machine), then the rest. */
  private static void stop(Process p) throws InterruptedException {
    Optional<ProcessHandle> jvm = p.descendants()
        .filter(h -> h.info().command().map(c -> c.endsWith("/java")).orElse(false)).findFirst();
    ProcessHandle target = jvm.orElse(p.toHandle());
    target.destroy();
    try {
      target.onExit().get(5, TimeUnit.MINUTES);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      target.destroyForcibly();
    }
    p.descendants().forEach(ProcessHandle::destroy);
    p.destroy();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  /**
   * {@link #LOAD} of requests through the proxy from {@link #CONCURRENCY} threads; prints the counts. Most
   * threads are raw keep-alive HTTP/1.1 clients (plain absolute-form, and TLS inside CONNECT) because they cost
   * the build JVM little, so the proxy sees thousands of requests and its relay methods get profiled; two
   * use the JDK's HttpClient over HTTP/2 (intercepted), for the HTTP/2 codec.
   */
  private static void load(InetSocketAddress proxy, Path caPem, Path work) throws IOException, InterruptedException {
    // Without TCP_NODELAY the JDK's server waits for delayed ACKs: ~25 answers a second per connection.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    HttpServer plain = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    HttpsServer tls = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    ExecutorService originThreads = Executors.newFixedThreadPool(4);
    for (HttpServer s : List.of(plain, tls)) {
      s.createContext("/", ex -> {
        byte[] body = ("{\"path\": \"" + ex.getRequestURI().getPath() + "\"}").getBytes(StandardCharsets.UTF_8);
        ex.getRequestBody().readAllBytes();
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
        ex.close();
      });
      s.setExecutor(originThreads);
    }
    tls.setHttpsConfigurator(new HttpsConfigurator(originContext(work)));
    plain.start();
    tls.start();
    ExecutorService clients = Executors.newFixedThreadPool(CONCURRENCY);
    try {
      SSLContext trustLoupe = CdsTraining.trusting(caPem);
      HttpClient h1 = HttpClient.newBuilder().proxy(ProxySelector.of(proxy)).sslContext(trustLoupe)
          .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
      HttpClient h2 = HttpClient.newBuilder().proxy(ProxySelector.of(proxy)).sslContext(trustLoupe)
          .version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(10)).build();
      String http = "http://127.0.0.1:" + plain.getAddress().getPort();
      String https = "https://127.0.0.1:" + tls.getAddress().getPort();
      List<HttpRequest> requests = List.of(
          HttpRequest.newBuilder(URI.create(http + "/get")).build(),
          HttpRequest.newBuilder(URI.create(http + "/post"))
              .POST(HttpRequest.BodyPublishers.ofString("a=1&b=2")).build(),
          HttpRequest.newBuilder(URI.create(https + "/get")).build());
      AtomicInteger ok = new AtomicInteger();
      AtomicInteger failed = new AtomicInteger();
      AtomicLong end = new AtomicLong(System.nanoTime() + LOAD.toNanos());
      List<java.util.concurrent.Future<?>> running = new ArrayList<>();
      for (int i = 0; i < CONCURRENCY; i++) {
        if (i < CONCURRENCY - 2) {
          boolean secure = i % 2 == 1;
          InetSocketAddress origin = secure ? tls.getAddress() : plain.getAddress();
          SSLContext rawTls = secure ? trustLoupe : null;
          running.add(clients.submit(() -> rawClient(proxy, origin, rawTls, end.get(), ok, failed)));
          continue;
        }
        HttpClient client = i % 2 == 0 ? h1 : h2;
        int first = i;
        running.add(clients.submit(() -> {
          for (int n = first; System.nanoTime() < end.get(); n++) {
            HttpRequest r = requests.get(n % requests.size());
            try {
              HttpResponse<byte[]> resp = client.send(HttpRequest.newBuilder(r, (k, v) -> true)
                  .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofByteArray());
              (resp.statusCode() == 200 ? ok : failed).incrementAndGet();
            } catch (IOException e) {
              failed.incrementAndGet();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return;
            }
          }
        }));
      }
      for (java.util.concurrent.Future<?> f : running) {
        try {
          f.get(LOAD.toSeconds() + 60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
          f.cancel(true);
        }
      }
      System.out.printf("AOT training: %d requests answered 200, %d failed, in %d s%n", ok.get(), failed.get(),
          LOAD.toSeconds());
      if (ok.get() == 0) {
        throw new IOException("AOT training: no request went through the proxy");
      }
    } finally {
      clients.shutdownNow();
      plain.stop(0);
      tls.stop(0);
      originThreads.shutdownNow();
    }
  }

  /**
   * Keep-alive HTTP/1.1 GETs and POSTs through the proxy until {@code endNanos}: absolute-form to a plain
   * origin, or (with {@code tls}) a CONNECT tunnel, TLS with the proxy's minted certificate, origin-form
   * inside; {@link #REQUESTS_PER_CONNECTION} per connection, then a new one. A broken connection is counted
   * and replaced.
   */
  private static void rawClient(InetSocketAddress proxy, InetSocketAddress origin, SSLContext tls, long endNanos,
      AtomicInteger ok, AtomicInteger failed) {
    String authority = "127.0.0.1:" + origin.getPort();
    while (System.nanoTime() < endNanos && !Thread.currentThread().isInterrupted()) {
      try (java.net.Socket raw = new java.net.Socket(proxy.getAddress(), proxy.getPort())) {
        raw.setSoTimeout(20_000);
        raw.setTcpNoDelay(true);
        java.net.Socket s = raw;
        String target = "http://" + authority;
        if (tls != null) {
          raw.getOutputStream().write(("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
          java.io.BufferedInputStream in = new java.io.BufferedInputStream(raw.getInputStream());
          if (readResponse(in) != 200) {
            failed.incrementAndGet();
            continue;
          }
          s = tls.getSocketFactory().createSocket(raw, "127.0.0.1", origin.getPort(), true);
          target = "";
        }
        java.io.OutputStream out = s.getOutputStream();
        java.io.BufferedInputStream in = new java.io.BufferedInputStream(s.getInputStream());
        for (int n = 0; n < REQUESTS_PER_CONNECTION && System.nanoTime() < endNanos; n++) {
          String head = n % 4 == 3
              ? "POST " + target + "/post HTTP/1.1\r\nHost: " + authority + "\r\nContent-Type: text/plain\r\n"
                  + "Content-Length: 7\r\n\r\na=1&b=2"
              : "GET " + target + "/get?n=" + n + " HTTP/1.1\r\nHost: " + authority + "\r\nAccept: */*\r\n\r\n";
          out.write(head.getBytes(StandardCharsets.US_ASCII));
          out.flush();
          (readResponse(in) == 200 ? ok : failed).incrementAndGet();
        }
        s.close(); // TLS: close_notify first, as a browser closing a tab does
      } catch (IOException e) {
        failed.incrementAndGet();
      }
    }
  }

  /** Reads one response with a Content-Length body (what the training origins and the proxy send); its status. */
  private static int readResponse(java.io.BufferedInputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int status = -1;
    long length = 0;
    boolean first = true;
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new IOException("connection closed");
      }
      if (c != '\n') {
        line.append((char) c);
        continue;
      }
      String l = line.toString().strip();
      line.setLength(0);
      if (first) {
        status = Integer.parseInt(l.split(" ")[1]);
        first = false;
      } else if (l.isEmpty()) {
        break;
      } else if (l.regionMatches(true, 0, "content-length:", 0, 15)) {
        length = Long.parseLong(l.substring(15).strip());
      }
    }
    in.skipNBytes(length);
    return status;
  }

  /**
   * The TLS origin's key and self-signed certificate, made with the build JDK's keytool (the training
   * launch runs with {@code --insecure}).
   */
  private static SSLContext originContext(Path work) throws IOException, InterruptedException {
    Path store = work.resolve("origin.p12");
    Files.deleteIfExists(store);
    Path keytool = JavaRuntime.running().resolve("bin").resolve("keytool");
    Tools.run(List.of(keytool.toString(), "-genkeypair", "-alias", "origin", "-keyalg", "EC", "-groupname", "secp256r1",
        "-dname", "CN=localhost", "-ext", "san=dns:localhost,ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
        "-keystore", store.toString(), "-storepass", "training", "-keypass", "training"), 2, TimeUnit.MINUTES,
        "keytool, from the JDK running the build");
    try (InputStream in = Files.newInputStream(store)) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(in, "training".toCharArray());
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, "training".toCharArray());
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(kmf.getKeyManagers(), null, null);
      return ctx;
    } catch (java.security.GeneralSecurityException e) {
      throw new IOException("cannot load the training origin's key: " + e.getMessage(), e);
    }
  }

  /** What a jpackage launcher's {@code .cfg} says: JVM options, class path and main class, {@code $APPDIR} expanded. */
  record Cfg(List<String> options, List<String> classPath, String mainClass) {
    static Cfg read(Path cfg, Path appDir) throws IOException {
      List<String> options = new ArrayList<>();
      List<String> classPath = new ArrayList<>();
      String main = null;
      for (String line : Files.readAllLines(cfg)) {
        String v = line.substring(line.indexOf('=') + 1).replace("$APPDIR", appDir.toString());
        if (line.startsWith("java-options=")) {
          options.add(v);
        } else if (line.startsWith("app.classpath=")) {
          classPath.add(v);
        } else if (line.startsWith("app.mainclass=")) {
          main = v;
        }
      }
      if (main == null || classPath.isEmpty()) {
        throw new IOException(cfg + " names no main class or class path");
      }
      return new Cfg(List.copyOf(options), List.copyOf(classPath), main);
    }
  }
}
