package dev.loupe.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP front for an origin: forwards every connection to it, except the {@code drop}-th (counted
 * from 1), which it closes at its first byte (for TLS, the ClientHello): an origin that gives up on
 * a connection in its handshake. Threads: one accepting, two per forwarded connection.
 */
final class DroppingFront implements AutoCloseable {
  final AtomicInteger accepted = new AtomicInteger();
  final List<Integer> dropped = new CopyOnWriteArrayList<>();
  private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
  private final int target;
  private final int drop;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "dropping-front");
    t.setDaemon(true);
    return t;
  });

  DroppingFront(int target, int drop) throws IOException {
    this.target = target;
    this.drop = drop;
    threads.execute(this::accept);
  }

  int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket in = server.accept();
        open.add(in);
        int n = accepted.incrementAndGet();
        threads.execute(() -> serve(in, n));
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void serve(Socket in, int n) {
    try {
      if (n == drop) {
        if (in.getInputStream().read() >= 0) { // the ClientHello's first byte: give up now
          dropped.add(n);
        }
        in.close();
        return;
      }
      Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
      open.add(out);
      threads.execute(() -> pump(out, in));
      pump(in, out);
    } catch (IOException e) {
      close(in);
    }
  }

  private static void pump(Socket from, Socket to) {
    byte[] buf = new byte[16 * 1024];
    try {
      InputStream src = from.getInputStream();
      OutputStream dst = to.getOutputStream();
      int r;
      while ((r = src.read(buf)) >= 0) {
        dst.write(buf, 0, r);
        dst.flush();
      }
    } catch (IOException ignored) {
      // the other side closed
    } finally {
      close(from);
      close(to);
    }
  }

  private static void close(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    open.forEach(DroppingFront::close);
    threads.shutdownNow();
  }
}
