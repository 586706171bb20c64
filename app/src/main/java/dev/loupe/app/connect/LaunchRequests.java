package dev.loupe.app.connect;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * How {@code loupe browser}, run in another process, gets a listener of its own on the running Loupe
 * — the one the window's "Open browser" gives its browsers — so the running Loupe tags the browser's
 * flows with its name. The running Loupe serves this on a loopback port; the port and a random
 * token are in {@code running.json} ({@link RunningFile}, readable by its owner alone).
 *
 * <h3>Protocol</h3>
 * One TCP connection per launched client, one line each way (UTF-8, LF):
 * <pre>
 *   client: LOUPE-LISTEN 1 TOKEN LABEL
 *   Loupe:  OK HOST:PORT          (the listener for the client, tagging its flows LABEL)
 *       or  ERROR REASON          (and the connection closes)
 * </pre>
 * The listener stays open while the connection does: when the client closes it, or its process
 * ends in any way (the system closes its sockets), the listener closes. It survives proxy restarts
 * as the window's do ({@link ClientListeners#reopenOn}).
 *
 * <h3>Limits</h3>
 * The request line is at most {@value #MAX_LINE} bytes and must arrive within
 * {@link #REQUEST_TIMEOUT}; at most {@value #MAX_HOLDERS} connections are served at once (more are
 * closed at once); a label is 1 to {@value #MAX_LABEL} characters with no control characters.
 *
 * <p>Thread-safe: an accept thread, and a daemon thread per held connection (it only waits for the
 * connection to end).
 */
public final class LaunchRequests implements AutoCloseable {
  static final String MAGIC = "LOUPE-LISTEN 1";
  static final int MAX_LINE = 512;
  static final int MAX_LABEL = 64;
  static final int MAX_HOLDERS = 64;
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

  private final ServerSocket server;
  private final String token;
  private final ClientListeners listeners;
  private final Semaphore holders = new Semaphore(MAX_HOLDERS);
  private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private LaunchRequests(ServerSocket server, String token, ClientListeners listeners) {
    this.server = server;
    this.token = token;
    this.listeners = listeners;
  }

  /** Serves requests on a free loopback port, opening listeners from {@code listeners}. */
  public static LaunchRequests start(ClientListeners listeners) throws IOException {
    ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    byte[] secret = new byte[16];
    new SecureRandom().nextBytes(secret);
    LaunchRequests r = new LaunchRequests(server, HexFormat.of().formatHex(secret), listeners);
    Thread t = new Thread(r::acceptLoop, "loupe-launch-requests");
    t.setDaemon(true);
    t.start();
    return r;
  }

  /** The loopback port requests go to. */
  public int port() {
    return server.getLocalPort();
  }

  /** What a request must carry (kept in the owner-only {@code running.json}). */
  public String token() {
    return token;
  }

  /** Stops serving and closes every listener opened through it. */
  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    for (Socket s : connections) {
      closeQuietly(s);
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        if (!closed) {
          System.err.println("Loupe: launch requests stopped: " + e.getMessage());
        }
        return;
      }
      if (!holders.tryAcquire()) {
        closeQuietly(s);
        continue;
      }
      connections.add(s);
      Thread t = new Thread(() -> {
        try {
          serve(s);
        } finally {
          connections.remove(s);
          closeQuietly(s);
          holders.release();
        }
      }, "loupe-launch-request");
      t.setDaemon(true);
      t.start();
    }
  }

  private void serve(Socket s) {
    ClientListeners.Entry entry = null;
    try {
      s.setSoTimeout((int) REQUEST_TIMEOUT.toMillis());
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      String line = readLine(in);
      String label = line == null ? null : labelOf(line);
      if (label == null) {
        reply(out, "ERROR bad request");
        return;
      }
      try {
        entry = listeners.open(label);
      } catch (IOException | RuntimeException e) {
        reply(out, "ERROR cannot open a listener: " + oneLine(e.getMessage()));
        return;
      }
      InetSocketAddress at = entry.address();
      reply(out, "OK " + dev.loupe.engine.api.ListenAddress.format(at));
      s.setSoTimeout(0);
      byte[] drain = new byte[256];
      while (in.read(drain) >= 0) {
        // the client has nothing more to say; the end of its connection ends the listener
      }
    } catch (IOException e) {
      // the client went away (or timed out): its listener goes with it
    } finally {
      if (entry != null) {
        entry.close();
      }
    }
  }

  /** The label of a well-formed request carrying the token, else null. */
  private String labelOf(String line) {
    if (!line.startsWith(MAGIC + " ")) {
      return null;
    }
    String rest = line.substring(MAGIC.length() + 1);
    int space = rest.indexOf(' ');
    if (space <= 0) {
      return null;
    }
    byte[] given = rest.substring(0, space).getBytes(StandardCharsets.UTF_8);
    if (!MessageDigest.isEqual(given, token.getBytes(StandardCharsets.UTF_8))) {
      return null;
    }
    String label = rest.substring(space + 1).strip();
    return validLabel(label) ? label : null;
  }

  static boolean validLabel(String label) {
    return !label.isEmpty() && label.length() <= MAX_LABEL && label.chars().noneMatch(c -> c < 0x20 || c == 0x7f);
  }

  /** A line of at most {@value #MAX_LINE} bytes without its LF (a CR before it is dropped), or null. */
  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0 || b.size() >= MAX_LINE) {
        return null;
      }
      b.write(c);
    }
    String line = b.toString(StandardCharsets.UTF_8);
    return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
  }

  private static void reply(OutputStream out, String line) throws IOException {
    out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private static String oneLine(String s) {
    return s == null ? "unknown error" : s.replaceAll("[\\r\\n]+", " ");
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // closing
    }
  }

  /**
   * The client side: a listener of its own on the Loupe serving requests at {@code at}, held until
   * {@link #close()} (or until this process ends).
   */
  public static final class Lease implements AutoCloseable {
    private final Socket socket;
    private final InetSocketAddress proxy;

    private Lease(Socket socket, InetSocketAddress proxy) {
      this.socket = socket;
      this.proxy = proxy;
    }

    /** Asks for a listener tagging its flows {@code label}. */
    public static Lease request(InetSocketAddress at, String token, String label, Duration timeout)
        throws IOException {
      if (!validLabel(label) || token == null || token.indexOf(' ') >= 0 || token.indexOf('\n') >= 0) {
        throw new IllegalArgumentException("bad label or token");
      }
      Socket s = new Socket();
      try {
        s.connect(at, (int) timeout.toMillis());
        s.setSoTimeout((int) timeout.toMillis());
        s.getOutputStream().write((MAGIC + " " + token + " " + label + "\n").getBytes(StandardCharsets.UTF_8));
        s.getOutputStream().flush();
        String reply = readLine(s.getInputStream());
        if (reply == null) {
          throw new IOException("Loupe closed the connection without an answer");
        }
        if (!reply.startsWith("OK ")) {
          throw new IOException("Loupe refused: " + (reply.startsWith("ERROR ") ? reply.substring(6) : reply));
        }
        InetSocketAddress proxy;
        try {
          proxy = dev.loupe.engine.api.ListenAddress.parse(reply.substring(3));
        } catch (IllegalArgumentException e) {
          throw new IOException("Loupe answered an address that is not one: " + reply);
        }
        s.setSoTimeout(0);
        return new Lease(s, proxy);
      } catch (SocketTimeoutException e) {
        closeQuietly(s);
        throw new IOException("Loupe did not answer in time", e);
      } catch (IOException | RuntimeException e) {
        closeQuietly(s);
        throw e;
      }
    }

    /** The listener's address: the proxy for the launched client. */
    public InetSocketAddress proxy() {
      return proxy;
    }

    /** Gives the listener up (the running Loupe closes it). */
    @Override
    public void close() {
      closeQuietly(socket);
    }
  }
}
