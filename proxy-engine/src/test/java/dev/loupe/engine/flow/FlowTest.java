package dev.loupe.engine.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.internal.record.RecordedFlow;
import java.nio.ByteBuffer;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class FlowTest {
  private final RecordedFlow flow = new RecordedFlow(7, Instant.parse("2026-11-30T02:10:18Z"), CapturePolicy.defaults());

  @Test
  void startsInFlightAsRelay() {
    assertThat(flow.state()).isEqualTo(FlowState.IN_FLIGHT);
    assertThat(flow.tier()).isEqualTo(FlowTier.RELAY);
    assertThat(flow.isTunnel()).isFalse();
    assertThat(flow.webSocketCloseCode()).isEqualTo(-1);
  }

  /**
   * The UI and plugins get the {@link Flow} view: its lists are live (they show what the engine
   * records later) but cannot be changed through it.
   */
  @Test
  void theReadOnlyViewsListsAreLiveAndUnmodifiable() {
    Flow view = flow;
    flow.modifiedBy("rule \"a\"");
    assertThat(view.modifiedBy()).containsExactly("rule \"a\"");
    flow.modifiedBy("rule \"b\"");
    flow.note("hook threw");
    assertThat(view.modifiedBy()).containsExactly("rule \"a\"", "rule \"b\"");
    assertThat(view.notes()).containsExactly("hook threw");
    assertThatThrownBy(() -> view.modifiedBy().add("x")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> view.notes().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> view.informationalResponses().add(null)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> view.webSocketMessages().add(null)).isInstanceOf(UnsupportedOperationException.class);
    assertThat(view.modifiedBy()).hasSize(2);
  }

  @Test
  void completeEndsBothBodies() {
    flow.complete();
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.requestBody().isComplete()).isTrue();
    assertThat(flow.responseBody().isComplete()).isTrue();
    flow.fail(new FlowError(FlowError.Kind.TIMEOUT, "late"));
    assertThat(flow.state()).as("moves forward only").isEqualTo(FlowState.COMPLETE);
    assertThat(flow.error()).isNull();
  }

  @Test
  void theFirstErrorWins() {
    FlowError first = new FlowError(FlowError.Kind.CONNECT_REFUSED, "a.example:443 refused the connection");
    flow.fail(first);
    flow.fail(new FlowError(FlowError.Kind.CLIENT_ABORT, "client went away"));
    flow.complete();
    assertThat(flow.state()).isEqualTo(FlowState.FAILED);
    assertThat(flow.error()).isEqualTo(first);
    assertThat(flow.toString()).contains("CONNECT_REFUSED");
  }

  @Test
  void informationalResponsesAreKeptApartFromTheFinalOne() {
    flow.response(new ResponseHead(100, "Continue", "HTTP/1.1", Headers.EMPTY));
    flow.response(new ResponseHead(103, "Early Hints", "HTTP/1.1", Headers.of("Link", "</a.css>")));
    assertThat(flow.response()).isNull();
    flow.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.EMPTY));
    assertThat(flow.response().status()).isEqualTo(200);
    assertThat(flow.informationalResponses()).extracting(ResponseHead::status).containsExactly(100, 103);
  }

  @Test
  void tunnelBytesAddUpAndWebSocketCloseIsTheFirstSeen() {
    flow.addTunnelBytes(10, 20);
    flow.addTunnelBytes(1, 2);
    assertThat(flow.tunnelBytesClientToServer()).isEqualTo(11);
    assertThat(flow.tunnelBytesServerToClient()).isEqualTo(22);
    flow.webSocketClosed(1000, "bye");
    flow.webSocketClosed(1006, "");
    assertThat(flow.webSocketCloseCode()).isEqualTo(1000);
    assertThat(flow.webSocketCloseReason()).isEqualTo("bye");
  }

  @Test
  void memoryFootprintCountsBodiesAndMessages() {
    long empty = flow.memoryFootprint();
    flow.responseBody().append(ByteBuffer.wrap(new byte[1000]));
    flow.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.SERVER_TO_CLIENT,
        WebSocketMessage.BINARY, new byte[100], 100, Instant.now()));
    assertThat(flow.memoryFootprint()).isGreaterThanOrEqualTo(empty + 1100);
  }
}
