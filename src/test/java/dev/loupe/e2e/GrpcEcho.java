package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.ca.LeafCertificate;
import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestPki;
import io.grpc.ChannelCredentials;
import io.grpc.ForwardingServerCall;
import io.grpc.HttpConnectProxiedSocketAddress;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A gRPC rig for the e2e tests: real grpc-java servers (grpc-netty-shaded; one TLS with a
 * certificate for {@code localhost} from the origin test CA, one cleartext) serving
 * {@code test.Echo}, defined without protoc (messages are raw bytes), and three Loupe proxies in
 * front of them, one per {@link Route}. Methods:
 * <ul>
 *   <li>{@code Unary} echoes one message;
 *   <li>{@code Bidi} echoes every message of a bidirectional stream, in order;
 *   <li>{@code Missing} fails with NOT_FOUND ("no such thing: REQUEST") before any message: a
 *       Trailers-Only response (one HEADERS frame with END_STREAM carrying {@code grpc-status});
 *   <li>{@code Hang} echoes, never ends, and completes a future when the client's cancel reached it;
 *   <li>{@code Abort} echoes {@value #ABORT_AFTER} messages, then ends the call with ABORTED
 *       ("enough after 3") whatever the client is still sending.
 * </ul>
 * Every response gets a custom header {@code x-header: yes} (when headers are sent apart from the
 * trailers) and a custom trailer {@code x-trailer: yes}.
 */
final class GrpcEcho implements AutoCloseable {
  static final String SERVICE = "test.Echo";
  static final Metadata.Key<String> X_HEADER = Metadata.Key.of("x-header", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> X_TRAILER = Metadata.Key.of("x-trailer", Metadata.ASCII_STRING_MARSHALLER);
  /** {@code Abort} echoes this many messages, then ends the call with ABORTED. */
  static final int ABORT_AFTER = 3;

  private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try (stream) {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw Status.INTERNAL.withCause(e).withDescription("cannot read message").asRuntimeException();
      }
    }
  };

  static final MethodDescriptor<byte[], byte[]> UNARY = method("Unary", MethodDescriptor.MethodType.UNARY);
  static final MethodDescriptor<byte[], byte[]> BIDI = method("Bidi", MethodDescriptor.MethodType.BIDI_STREAMING);
  static final MethodDescriptor<byte[], byte[]> MISSING = method("Missing", MethodDescriptor.MethodType.UNARY);
  static final MethodDescriptor<byte[], byte[]> HANG = method("Hang", MethodDescriptor.MethodType.BIDI_STREAMING);
  static final MethodDescriptor<byte[], byte[]> ABORT = method("Abort", MethodDescriptor.MethodType.BIDI_STREAMING);

  /** How a client reaches the gRPC server through Loupe. */
  enum Route {
    /** Reverse mode, TLS (h2 by ALPN) on Loupe's port, TLS (h2 by ALPN) to the origin. */
    REVERSE_TLS,
    /** Regular mode: CONNECT localhost:PORT, TLS intercepted with a Loupe-minted certificate. */
    CONNECT_TLS,
    /** Reverse mode in cleartext: h2c prior knowledge from the client and to the origin. */
    REVERSE_H2C,
    /**
     * Regular mode without TLS: CONNECT 127.0.0.1:PORT, then h2c prior knowledge inside the tunnel;
     * Loupe parses it and speaks h2c to the origin, with the default {@code --upstream-protocol auto}.
     */
    CONNECT_H2C;

    boolean cleartext() {
      return this == REVERSE_H2C || this == CONNECT_H2C;
    }
  }

  private final Server tlsServer;
  private final Server plainServer;
  private final ProxyFixture reverseTls;
  private final ProxyFixture regular;
  private final ProxyFixture reverseH2c;
  /** One future per {@code Hang} call, in call order; completed when the server saw the cancel. */
  private final List<CompletableFuture<Void>> hangCancelled = new CopyOnWriteArrayList<>();

  private GrpcEcho() throws Exception {
    LeafCertificate leaf = TestPki.shared().originCa().leafFor("localhost");
    StringBuilder chain = new StringBuilder();
    for (X509Certificate c : leaf.chain()) {
      chain.append(pem("CERTIFICATE", c.getEncoded()));
    }
    ServerCredentials tls = TlsServerCredentials.newBuilder()
        .keyManager(new ByteArrayInputStream(chain.toString().getBytes(StandardCharsets.US_ASCII)),
            new ByteArrayInputStream(pem("PRIVATE KEY", leaf.privateKey().getEncoded())
                .getBytes(StandardCharsets.US_ASCII)))
        .build();
    tlsServer = server(tls);
    plainServer = server(InsecureServerCredentials.create());
    reverseTls = ProxyFixture.start(b -> b.reverse(
        EngineConfig.Reverse.parse("https://localhost:" + tlsServer.getPort())));
    regular = ProxyFixture.start();
    // A cleartext origin has no ALPN to agree on h2 with: gRPC needs the server leg forced to HTTP/2.
    reverseH2c = ProxyFixture.start(b -> b
        .reverse(EngineConfig.Reverse.parse("http://127.0.0.1:" + plainServer.getPort()))
        .upstreamProtocol(EngineConfig.UpstreamProtocol.H2));
  }

  static GrpcEcho start() throws Exception {
    return new GrpcEcho();
  }

  @Override
  public void close() throws InterruptedException {
    reverseTls.close();
    regular.close();
    reverseH2c.close();
    tlsServer.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    plainServer.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  ProxyFixture proxy(Route route) {
    return switch (route) {
      case REVERSE_TLS -> reverseTls;
      case CONNECT_TLS -> regular;
      case REVERSE_H2C -> reverseH2c;
      case CONNECT_H2C -> regular;
    };
  }

  /** The port of the gRPC server that {@code route} ends at. */
  int originPort(Route route) {
    return route.cleartext() ? plainServer.getPort() : tlsServer.getPort();
  }

  List<CompletableFuture<Void>> hangCancelled() {
    return hangCancelled;
  }

  /** The one ended flow of {@code /test.Echo/METHOD} through {@code route}'s proxy. */
  Flow awaitFlow(Route route, String method) {
    // The regular proxy serves two routes: the origin's port tells their flows apart.
    return proxy(route).awaitFlow(":" + originPort(route) + "/" + SERVICE + "/" + method);
  }

  /** A new channel to the gRPC server through {@code route}; shut it down with {@link #close(ManagedChannel)}. */
  ManagedChannel channel(Route route) throws IOException {
    ChannelCredentials trustLoupe = TlsChannelCredentials.newBuilder()
        .trustManager(TestPki.shared().loupeCa().certificatePath().toFile())
        .build();
    NettyChannelBuilder b = switch (route) {
      // Loupe's own port; the certificate is checked against (and SNI names) "localhost".
      case REVERSE_TLS -> NettyChannelBuilder.forAddress("127.0.0.1", reverseTls.port(), trustLoupe)
          .overrideAuthority("localhost");
      case CONNECT_TLS -> {
        InetSocketAddress proxy = regular.address();
        yield NettyChannelBuilder.forAddress("localhost", tlsServer.getPort(), trustLoupe)
            .proxyDetector(target -> HttpConnectProxiedSocketAddress.newBuilder()
                .setTargetAddress((InetSocketAddress) target)
                .setProxyAddress(proxy)
                .build());
      }
      case REVERSE_H2C -> NettyChannelBuilder.forAddress("127.0.0.1", reverseH2c.port(),
          InsecureChannelCredentials.create());
      case CONNECT_H2C -> {
        InetSocketAddress proxy = regular.address();
        yield NettyChannelBuilder.forAddress("127.0.0.1", plainServer.getPort(), InsecureChannelCredentials.create())
            .proxyDetector(target -> HttpConnectProxiedSocketAddress.newBuilder()
                .setTargetAddress((InetSocketAddress) target)
                .setProxyAddress(proxy)
                .build());
      }
    };
    return b.maxInboundMessageSize(8 << 20).build();
  }

  static void close(ManagedChannel channel) throws InterruptedException {
    channel.shutdownNow();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).as("channel terminated").isTrue();
  }

  /** {@code size} deterministic bytes, the first four of which are {@code index} (when they fit). */
  static byte[] message(int index, int size) {
    byte[] b = TestData.bytes(size);
    if (size >= 4) {
      ByteBuffer.wrap(b).putInt(index);
    }
    return b;
  }

  /** The messages as gRPC frames them in an HTTP/2 body (uncompressed: flag 0, 4-byte length). */
  static byte[] framed(List<byte[]> messages) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] m : messages) {
      out.write(0);
      out.writeBytes(ByteBuffer.allocate(4).putInt(m.length).array());
      out.writeBytes(m);
    }
    return out.toByteArray();
  }

  private Server server(ServerCredentials credentials) throws IOException {
    ServerServiceDefinition echo = ServerServiceDefinition.builder(SERVICE)
        .addMethod(UNARY, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(request);
          response.onCompleted();
        }))
        .addMethod(BIDI, ServerCalls.asyncBidiStreamingCall(response -> new Echo(response) {
          @Override
          public void onCompleted() {
            response.onCompleted();
          }
        }))
        .addMethod(MISSING, ServerCalls.asyncUnaryCall((request, response) -> response.onError(Status.NOT_FOUND
            .withDescription("no such thing: " + new String(request, StandardCharsets.UTF_8))
            .asRuntimeException())))
        .addMethod(HANG, ServerCalls.asyncBidiStreamingCall(response -> {
          CompletableFuture<Void> cancelled = new CompletableFuture<>();
          ((ServerCallStreamObserver<byte[]>) response).setOnCancelHandler(() -> cancelled.complete(null));
          hangCancelled.add(cancelled);
          return new Echo(response);
        }))
        .addMethod(ABORT, ServerCalls.asyncBidiStreamingCall(response -> new Echo(response) {
          private int count;

          @Override
          public void onNext(byte[] value) {
            if (count < ABORT_AFTER) {
              super.onNext(value);
              if (++count == ABORT_AFTER) {
                response.onError(Status.ABORTED.withDescription("enough after " + ABORT_AFTER).asRuntimeException());
              }
            }
          }
        }))
        .build();
    return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0), credentials)
        .addService(ServerInterceptors.intercept(echo, new CustomHeaders()))
        .maxInboundMessageSize(8 << 20)
        .build()
        .start();
  }

  /** What a client call received: its messages in order, and how it ended. */
  static final class Received implements StreamObserver<byte[]> {
    final List<byte[]> messages = new CopyOnWriteArrayList<>();
    /** Completed normally on OK, exceptionally with the call's StatusRuntimeException otherwise. */
    final CompletableFuture<Void> end = new CompletableFuture<>();

    @Override
    public void onNext(byte[] value) {
      messages.add(value);
    }

    @Override
    public void onError(Throwable t) {
      end.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
      end.complete(null);
    }
  }

  /** Echoes every message; ends only if a subclass says so. */
  private static class Echo implements StreamObserver<byte[]> {
    private final StreamObserver<byte[]> response;

    Echo(StreamObserver<byte[]> response) {
      this.response = response;
    }

    @Override
    public void onNext(byte[] value) {
      response.onNext(value);
    }

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {}
  }

  /** Adds {@code x-header: yes} to every response's headers and {@code x-trailer: yes} to its trailers. */
  private static final class CustomHeaders implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
        ServerCallHandler<Q, R> next) {
      return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
        @Override
        public void sendHeaders(Metadata responseHeaders) {
          responseHeaders.put(X_HEADER, "yes");
          super.sendHeaders(responseHeaders);
        }

        @Override
        public void close(Status status, Metadata trailers) {
          trailers.put(X_TRAILER, "yes");
          super.close(status, trailers);
        }
      }, headers);
    }
  }

  private static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .setRequestMarshaller(BYTES)
        .setResponseMarshaller(BYTES)
        .build();
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }
}
