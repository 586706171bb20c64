package dev.loupe.installer;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Records which classes a typical launch loads ({@code -XX:DumpLoadedClassList}), for the
 * class-data-sharing archive: the packaged launcher is started the way a user starts it — the window
 * (under {@code xvfb-run} when there is no display, if it is installed) and {@code --headless --har} —
 * and real requests go through it: plain HTTP to a local origin, and HTTPS through CONNECT so the
 * CA, leaf minting and TLS are in the list too. Each launch is stopped with SIGTERM, as a user's Ctrl+C.
 *
 * <p>Single-threaded apart from the origin's server thread; writes only into {@code work}.
 */
final class CdsTraining {
  static final Pattern LISTENING = Pattern.compile("listening on http://([0-9.]+):(\\d+)");

  private CdsTraining() {}

  /** Runs the launches and writes the merged class list to {@code out}. */
  static void record(Path launcher, Path work, Path out) throws IOException, InterruptedException {
    Files.createDirectories(work);
    List<Path> lists = new ArrayList<>();
    List<String> window = windowCommand(launcher);
    if (window != null) {
      Path list = work.resolve("window.classlist");
      launch(window, List.of("--listen", "127.0.0.1:0", "--confdir", work.resolve("conf").toString()), list, work,
          Duration.ofSeconds(4));
      lists.add(list);
    } else {
      System.out.println("CDS training: no display and no xvfb-run, so the window's classes are not recorded");
    }
    Path list = work.resolve("headless.classlist");
    launch(List.of(launcher.toString()), List.of("--headless", "--listen", "127.0.0.1:0", "--confdir",
        work.resolve("conf").toString(), "--har", work.resolve("training.har").toString()), list, work,
        Duration.ofMillis(500));
    lists.add(list);
    Files.write(out, merge(lists));
  }

  /** The command starting the window here, or null when no window can open. */
  static List<String> windowCommand(Path launcher) {
    if (System.getenv("DISPLAY") != null || System.getenv("WAYLAND_DISPLAY") != null) {
      return List.of(launcher.toString());
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, "xvfb-run"))) {
        return List.of("xvfb-run", "-a", "-s", "-screen 0 1280x800x24", launcher.toString());
      }
    }
    return null;
  }

  private static void launch(List<String> command, List<String> args, Path classList, Path work, Duration settle)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(command);
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.put("JAVA_TOOL_OPTIONS", "-XX:DumpLoadedClassList=" + classList + " -Xshare:off");
    Process p = pb.start();
    try {
      CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();
      Thread reader = new Thread(() -> readOutput(p.getInputStream(), listening), "cds-training-output");
      reader.setDaemon(true);
      reader.start();
      InetSocketAddress proxy = listening.get(60, TimeUnit.SECONDS);
      traffic(proxy, work.resolve("conf").resolve("ca-cert.pem"));
      Thread.sleep(settle.toMillis()); // the window shows the flows, the table and detail classes load
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IOException("training launch did not start listening: " + String.join(" ", cmd), e);
    } finally {
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroy();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
    }
    if (!Files.exists(classList)) {
      throw new IOException("the training launch wrote no class list: " + String.join(" ", cmd));
    }
  }

  static void readOutput(InputStream in, CompletableFuture<InetSocketAddress> listening) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        System.out.println("  | " + line);
        Matcher m = LISTENING.matcher(line);
        if (m.find()) {
          listening.complete(new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2))));
        }
      }
    } catch (IOException e) {
      listening.completeExceptionally(e);
    }
    listening.completeExceptionally(new IOException("the launch ended"));
  }

  /** A plain GET and a POST to a local origin, and an intercepted HTTPS request, through the proxy. */
  private static void traffic(InetSocketAddress proxy, Path caPem) throws IOException, InterruptedException {
    HttpServer origin = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    origin.createContext("/", ex -> {
      byte[] body = ("{\"path\": \"" + ex.getRequestURI().getPath() + "\"}").getBytes(StandardCharsets.UTF_8);
      ex.getRequestBody().readAllBytes();
      ex.getResponseHeaders().add("Content-Type", "application/json");
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    origin.start();
    java.net.ServerSocket notTls = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
    Thread answer = new Thread(() -> {
      while (!notTls.isClosed()) {
        try (java.net.Socket s = notTls.accept()) {
          s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
          return; // closed
        }
      }
    }, "cds-training-not-tls");
    answer.setDaemon(true);
    answer.start();
    try {
      HttpClient client = HttpClient.newBuilder().proxy(ProxySelector.of(proxy)).sslContext(trusting(caPem))
          .connectTimeout(Duration.ofSeconds(10)).build();
      String base = "http://127.0.0.1:" + origin.getAddress().getPort();
      send(client, HttpRequest.newBuilder(URI.create(base + "/hello")).build());
      send(client, HttpRequest.newBuilder(URI.create(base + "/form"))
          .POST(HttpRequest.BodyPublishers.ofString("a=1&b=2")).header("Content-Type", "text/plain").build());
      // HTTPS through CONNECT: the proxy mints a leaf and speaks TLS with the client; the "origin" answers
      // the proxy's ClientHello with plain text, so the upstream TLS fails at once and the client gets
      // Loupe's 502 page: interception, upstream TLS and the error path all load.
      send(client, HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + notTls.getLocalPort() + "/tls")).build());
    } finally {
      origin.stop(0);
      notTls.close();
    }
  }

  private static void send(HttpClient client, HttpRequest request) throws InterruptedException {
    try {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(request, (n, v) -> true)
          .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
      System.out.println("CDS training: " + request.method() + " " + request.uri() + " -> " + r.statusCode());
    } catch (IOException e) {
      System.out.println("CDS training: " + request.method() + " " + request.uri() + " -> " + e);
    }
  }

  static SSLContext trusting(Path caPem) throws IOException {
    try (InputStream in = Files.newInputStream(caPem)) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      ks.setCertificateEntry("loupe", CertificateFactory.getInstance("X.509").generateCertificate(in));
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (java.security.GeneralSecurityException e) {
      throw new IOException("cannot trust " + caPem + ": " + e.getMessage(), e);
    }
  }

  /**
   * Merges class lists: each class and each {@code @} line once, in first-seen order; classes of custom
   * loaders ({@code source:} lines, with {@code id:} numbers that differ between lists) are left out.
   */
  static List<String> merge(List<Path> lists) throws IOException {
    Set<String> seen = new LinkedHashSet<>();
    List<String> out = new ArrayList<>();
    for (Path list : lists) {
      for (String line : Files.readAllLines(list)) {
        String key = line.startsWith("@") || line.startsWith("#") ? line : line.split(" ", 2)[0];
        if (!line.isBlank() && !line.contains(" source: ") && seen.add(key)) {
          out.add(line);
        }
      }
    }
    return out;
  }
}
