package dev.loupe.e2e;

import static dev.loupe.e2e.GrpcEcho.ABORT_AFTER;
import static dev.loupe.e2e.GrpcEcho.framed;
import static dev.loupe.e2e.GrpcEcho.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.e2e.GrpcEcho.Received;
import dev.loupe.e2e.GrpcEcho.Route;
import dev.loupe.engine.flow.Flow;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A gRPC server that ends a bidirectional call (status ABORTED, in real trailers after
 * {@value GrpcEcho#ABORT_AFTER} echoed messages) while the client is still sending large
 * messages, on each {@link Route}. The client gets the messages, the status, its description and
 * the custom trailer; the flow records the trailers and the echoed messages.
 *
 * <p>The response is complete before the request is: whatever the client still sends on that
 * stream must be discarded (or the stream reset, RFC 9113 §8.1) and its buffers released. Netty
 * leak reports fail this class, so it also guards against request DATA left queued on a finished
 * HTTP/2 stream.
 */
@Timeout(180)
class GrpcEarlyEndTest {
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
  void serverEndsTheCallWhileTheClientIsStillSending(Route route) throws Exception {
    int size = 256 << 10;
    Received received = new Received();
    ManagedChannel channel = grpc.channel(route);
    try {
      ClientCall<byte[], byte[]> call = channel.newCall(GrpcEcho.ABORT,
          CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS));
      StreamObserver<byte[]> requests = ClientCalls.asyncBidiStreamingCall(call, received);
      // 10 MiB in all: plenty is still on its way (in Loupe's buffers and windows) when the
      // server gives up after the third.
      for (int i = 0; i < 40 && !received.end.isDone(); i++) {
        requests.onNext(message(i, size));
      }
      requests.onCompleted();
      assertThatThrownBy(() -> received.end.get(60, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).as("%s", e.getStatus()).isEqualTo(Status.Code.ABORTED);
            assertThat(e.getStatus().getDescription()).isEqualTo("enough after " + ABORT_AFTER);
            assertThat(e.getTrailers().get(GrpcEcho.X_TRAILER)).isEqualTo("yes");
          });
    } finally {
      GrpcEcho.close(channel);
    }
    assertThat(received.messages).hasSize(ABORT_AFTER);
    for (int i = 0; i < ABORT_AFTER; i++) {
      assertThat(received.messages.get(i)).isEqualTo(message(i, size));
    }

    Flow flow = grpc.awaitFlow(route, "Abort");
    assertThat(flow.clientProtocol()).isEqualTo("HTTP/2");
    assertThat(flow.serverProtocol()).isEqualTo("HTTP/2");
    assertThat(flow.response().status()).isEqualTo(200);
    assertThat(flow.response().headers().get("x-header")).isEqualTo("yes");
    assertThat(flow.responseTrailers().get("grpc-status")).as("flow %s, error %s", flow, flow.error())
        .isEqualTo("10");
    assertThat(flow.responseTrailers().get("grpc-message")).isEqualTo("enough after " + ABORT_AFTER);
    assertThat(flow.responseTrailers().get("x-trailer")).isEqualTo("yes");
    assertThat(flow.responseBody().bytes()).isEqualTo(framed(received.messages));
  }
}
