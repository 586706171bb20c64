package dev.loupe.e2e;

import static dev.loupe.e2e.GrpcEcho.framed;
import static dev.loupe.e2e.GrpcEcho.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.e2e.GrpcEcho.Received;
import dev.loupe.e2e.GrpcEcho.Route;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.Headers;
import dev.loupe.testing.TestData;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * gRPC end to end through Loupe (issue 3, "Bridges and semantics" and "Tests"): a real grpc-java
 * client and server ({@link GrpcEcho}) on each of three routes, each with its own proxy: reverse
 * mode over TLS (the client trusts Loupe's CA and talks to Loupe's port), regular mode through an
 * HTTP CONNECT tunnel with TLS interception, and reverse mode in cleartext (h2c prior knowledge on
 * both legs).
 *
 * <p>Unary and bidirectional calls arrive byte-exact and in order; a NOT_FOUND status sent as a
 * Trailers-Only response reaches the client with its message and trailer; a client's cancel
 * reaches the server. gRPC needs HTTP/2 end to end, so the flows must record HTTP/2 on both sides
 * with stream ids, the {@code /test.Echo/...} path, the length-prefixed messages as bodies, and
 * {@code grpc-status} (plus the custom trailer) in the response trailers.
 */
@Timeout(180)
class GrpcThroughProxyTest {
  static GrpcEcho grpc;

  @BeforeAll
  static void start() throws Exception {
    grpc = GrpcEcho.start();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (grpc != null) {
      grpc.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Route.class)
  void unaryEchoIsByteExact(Route route) throws Exception {
    byte[] request = message(0, 100_000);
    ManagedChannel channel = grpc.channel(route);
    try {
      byte[] response = ClientCalls.blockingUnaryCall(channel, GrpcEcho.UNARY,
          CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), request);
      assertThat(response).isEqualTo(request);
    } finally {
      GrpcEcho.close(channel);
    }

    Flow flow = grpc.awaitFlow(route, "Unary");
    assertGrpcFlow(flow, route, "Unary", true);
    assertThat(flow.requestBody().bytes()).isEqualTo(framed(List.of(request)));
    assertThat(flow.responseBody().bytes()).isEqualTo(framed(List.of(request)));
    assertThat(flow.responseTrailers().get("grpc-status")).as("trailers %s", flow.responseTrailers()).isEqualTo("0");
    assertThat(flow.responseTrailers().get("x-trailer")).isEqualTo("yes");
  }

  @ParameterizedTest
  @EnumSource(Route.class)
  void bidiStreamEchoesHundredMessagesInOrder(Route route) throws Exception {
    List<byte[]> sent = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      sent.add(message(i, sizeOf(i)));
    }
    Received received = new Received();
    ManagedChannel channel = grpc.channel(route);
    try {
      ClientCall<byte[], byte[]> call = channel.newCall(GrpcEcho.BIDI,
          CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS));
      StreamObserver<byte[]> requests = ClientCalls.asyncBidiStreamingCall(call, received);
      for (byte[] m : sent) {
        requests.onNext(m);
      }
      requests.onCompleted();
      received.end.get(60, TimeUnit.SECONDS);
    } finally {
      GrpcEcho.close(channel);
    }
    assertThat(received.messages).hasSize(sent.size());
    for (int i = 0; i < sent.size(); i++) {
      assertThat(received.messages.get(i)).as("message %d (%d bytes)", i, sent.get(i).length).isEqualTo(sent.get(i));
    }

    Flow flow = grpc.awaitFlow(route, "Bidi");
    assertGrpcFlow(flow, route, "Bidi", true);
    byte[] wire = framed(sent);
    assertThat(flow.requestBody().size()).isEqualTo(wire.length);
    assertThat(TestData.sha256(flow.requestBody().openStream())).isEqualTo(TestData.sha256(wire));
    assertThat(flow.responseBody().size()).isEqualTo(wire.length);
    assertThat(TestData.sha256(flow.responseBody().openStream())).isEqualTo(TestData.sha256(wire));
    assertThat(flow.responseTrailers().get("grpc-status")).isEqualTo("0");
    assertThat(flow.responseTrailers().get("x-trailer")).isEqualTo("yes");
  }

  @ParameterizedTest
  @EnumSource(Route.class)
  void notFoundArrivesAsTrailersOnly(Route route) throws Exception {
    ManagedChannel channel = grpc.channel(route);
    try {
      assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, GrpcEcho.MISSING,
          CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), "thing-42".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
            assertThat(e.getStatus().getDescription()).isEqualTo("no such thing: thing-42");
            assertThat(e.getTrailers()).isNotNull();
            assertThat(e.getTrailers().get(GrpcEcho.X_TRAILER)).isEqualTo("yes");
          });
    } finally {
      GrpcEcho.close(channel);
    }

    Flow flow = grpc.awaitFlow(route, "Missing");
    // Trailers-Only: the status travels in the one and only HEADERS frame, which the flow records
    // as the response head; there are no headers apart from it (so no x-header) and no trailers.
    assertGrpcFlow(flow, route, "Missing", false);
    assertThat(flow.responseBody().size()).isZero();
    Headers head = flow.response().headers();
    assertThat(head.get("grpc-status")).isEqualTo("5");
    assertThat(head.get("grpc-message")).isEqualTo("no such thing: thing-42");
    assertThat(head.get("x-trailer")).isEqualTo("yes");
    assertThat(flow.responseTrailers().isEmpty()).as("trailers %s", flow.responseTrailers()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(Route.class)
  void clientCancelReachesTheServer(Route route) throws Exception {
    CompletableFuture<byte[]> first = new CompletableFuture<>();
    CompletableFuture<Throwable> clientSawEnd = new CompletableFuture<>();
    int before = grpc.hangCancelled().size();
    ManagedChannel channel = grpc.channel(route);
    try {
      ClientCall<byte[], byte[]> call = channel.newCall(GrpcEcho.HANG,
          CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS));
      StreamObserver<byte[]> requests = ClientCalls.asyncBidiStreamingCall(call, new StreamObserver<>() {
        @Override
        public void onNext(byte[] value) {
          first.complete(value);
        }

        @Override
        public void onError(Throwable t) {
          clientSawEnd.complete(t);
        }

        @Override
        public void onCompleted() {
          clientSawEnd.complete(null);
        }
      });
      byte[] m = message(7, 1000);
      requests.onNext(m);
      assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(m);
      assertThat(grpc.hangCancelled()).hasSize(before + 1);
      call.cancel("test cancels", null);
      assertThat(clientSawEnd.get(30, TimeUnit.SECONDS)).isInstanceOf(StatusRuntimeException.class);
      // The server learns of the cancel only if Loupe reset the upstream stream.
      grpc.hangCancelled().get(before).get(30, TimeUnit.SECONDS);
    } finally {
      GrpcEcho.close(channel);
    }
    Flow flow = grpc.awaitFlow(route, "Hang");
    assertThat(flow.state()).isEqualTo(FlowState.FAILED);
    assertThat(flow.error()).isNotNull();
    assertThat(flow.clientProtocol()).isEqualTo("HTTP/2");
    assertThat(flow.serverProtocol()).isEqualTo("HTTP/2");
  }

  // ---------------------------------------------------------------------------------------------

  static void assertGrpcFlow(Flow flow, Route route, String method, boolean separateHeaders) {
    assertThat(flow.state()).as("flow %s, error %s", flow, flow.error()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.clientProtocol()).isEqualTo("HTTP/2");
    assertThat(flow.serverProtocol()).isEqualTo("HTTP/2");
    assertThat(flow.clientStreamId()).as("client stream id").isPositive();
    assertThat(flow.serverStreamId()).as("server stream id").isPositive();
    assertThat(flow.request().method()).isEqualTo("POST");
    assertThat(flow.request().path()).isEqualTo("/" + GrpcEcho.SERVICE + "/" + method);
    assertThat(flow.request().scheme()).isEqualTo(route.cleartext() ? "http" : "https");
    assertThat(flow.request().port()).isEqualTo(grpc.originPort(route));
    assertThat(flow.request().headers().get("content-type")).startsWith("application/grpc");
    assertThat(flow.request().headers().get("te")).isEqualTo("trailers");
    assertThat(flow.response().status()).isEqualTo(200);
    assertThat(flow.response().headers().get("content-type")).startsWith("application/grpc");
    if (separateHeaders) {
      assertThat(flow.response().headers().get("x-header")).isEqualTo("yes");
    }
    if (route.cleartext()) {
      assertThat(flow.clientConnection().tls()).isNull();
      assertThat(flow.serverConnection().tls()).isNull();
    } else {
      assertThat(flow.clientConnection().tls().alpn()).isEqualTo("h2");
      assertThat(flow.serverConnection().tls().alpn()).isEqualTo("h2");
    }
  }

  /** Sizes from 0 B to 1 MiB: empty, tiny, around the 16 KiB HTTP/2 frame size, and every tenth 1 MiB. */
  private static int sizeOf(int i) {
    if (i == 0) {
      return 0;
    }
    if (i % 10 == 9) {
      return 1 << 20;
    }
    return switch (i % 5) {
      case 0 -> 16_384;
      case 1 -> 16_385;
      case 2 -> 1 + i;
      default -> (int) ((i * 7_919L) % 200_000);
    };
  }
}
