package dev.loupe.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Timings;
import dev.loupe.engine.flow.WebSocketMessage;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/**
 * Asserts that a flow read back (from a session file, a HAR) holds everything the original held:
 * every getter of {@link Flow} and of its parts, bodies by size, truncation and SHA-256, timings
 * as every derived duration and every difference between raw readings.
 */
public final class FlowsAssert {
  private FlowsAssert() {}

  public static void assertSameFlow(Flow actual, Flow expected) {
    String at = "flow " + expected.id() + " ";
    assertThat(actual.id()).as(at + "id").isEqualTo(expected.id());
    assertThat(actual.startedAt()).as(at + "startedAt").isEqualTo(expected.startedAt());
    assertThat(actual.state()).as(at + "state").isEqualTo(expected.state());
    assertThat(actual.tier()).as(at + "tier").isEqualTo(expected.tier());
    assertThat(actual.clientProtocol()).as(at + "clientProtocol").isEqualTo(expected.clientProtocol());
    assertThat(actual.serverProtocol()).as(at + "serverProtocol").isEqualTo(expected.serverProtocol());
    assertThat(actual.clientStreamId()).as(at + "clientStreamId").isEqualTo(expected.clientStreamId());
    assertThat(actual.serverStreamId()).as(at + "serverStreamId").isEqualTo(expected.serverStreamId());
    assertThat(actual.clientQuicConnectionId()).as(at + "clientQuic").isEqualTo(expected.clientQuicConnectionId());
    assertThat(actual.serverQuicConnectionId()).as(at + "serverQuic").isEqualTo(expected.serverQuicConnectionId());
    assertThat(actual.http3Status()).as(at + "http3Status").isEqualTo(expected.http3Status());
    assertSameConnection(at + "client connection", actual.clientConnection(), expected.clientConnection());
    assertSameConnection(at + "server connection", actual.serverConnection(), expected.serverConnection());
    assertThat(actual.request()).as(at + "request").isEqualTo(expected.request());
    assertThat(actual.response()).as(at + "response").isEqualTo(expected.response());
    assertThat(actual.informationalResponses()).as(at + "1xx").isEqualTo(expected.informationalResponses());
    assertThat(actual.requestTrailers()).as(at + "request trailers").isEqualTo(expected.requestTrailers());
    assertThat(actual.responseTrailers()).as(at + "response trailers").isEqualTo(expected.responseTrailers());
    assertThat(actual.error()).as(at + "error").isEqualTo(expected.error());
    assertThat(actual.isWebSocket()).as(at + "webSocket").isEqualTo(expected.isWebSocket());
    assertThat(actual.webSocketCloseCode()).as(at + "close code").isEqualTo(expected.webSocketCloseCode());
    assertThat(actual.webSocketCloseReason()).as(at + "close reason").isEqualTo(expected.webSocketCloseReason());
    assertThat(actual.tunnelBytesClientToServer()).as(at + "tunnel up").isEqualTo(expected.tunnelBytesClientToServer());
    assertThat(actual.tunnelBytesServerToClient()).as(at + "tunnel down").isEqualTo(expected.tunnelBytesServerToClient());
    assertThat(actual.modifiedBy()).as(at + "modifiedBy").isEqualTo(expected.modifiedBy());
    assertThat(actual.notes()).as(at + "notes").isEqualTo(expected.notes());
    assertThat(actual.client()).as(at + "client").isEqualTo(expected.client());
    assertThat(actual.originalRequest()).as(at + "original request").isEqualTo(expected.originalRequest());
    assertThat(actual.originalResponse()).as(at + "original response").isEqualTo(expected.originalResponse());
    assertThat(actual.replayOf()).as(at + "replayOf").isEqualTo(expected.replayOf());
    assertSameBody(at + "request body", actual.requestBody(), expected.requestBody());
    assertSameBody(at + "response body", actual.responseBody(), expected.responseBody());
    assertSameBody(at + "original request body", actual.originalRequestBody(), expected.originalRequestBody());
    assertSameBody(at + "original response body", actual.originalResponseBody(), expected.originalResponseBody());
    assertSameMessages(at, actual.webSocketMessages(), expected.webSocketMessages());
    assertSameTimings(at, actual.timings(), expected.timings());
  }

  static void assertSameConnection(String what, ConnectionInfo actual, ConnectionInfo expected) {
    assertThat(actual).as(what).isEqualTo(expected);
    if (expected != null) {
      assertSameAddress(what + " remote", actual.remoteAddress(), expected.remoteAddress());
      assertSameAddress(what + " local", actual.localAddress(), expected.localAddress());
      if (expected.tls() != null) {
        assertThat(actual.tls().peerCertificates()).as(what + " chain").isEqualTo(expected.tls().peerCertificates());
      }
    }
  }

  private static void assertSameAddress(String what, InetSocketAddress actual, InetSocketAddress expected) {
    if (expected == null) {
      assertThat(actual).as(what).isNull();
      return;
    }
    assertThat(actual.getHostString()).as(what + " host").isEqualTo(expected.getHostString());
    assertThat(actual.isUnresolved()).as(what + " unresolved").isEqualTo(expected.isUnresolved());
    assertThat(actual.getPort()).as(what + " port").isEqualTo(expected.getPort());
  }

  public static void assertSameBody(String what, Body actual, Body expected) {
    if (expected == null) {
      assertThat(actual).as(what).isNull();
      return;
    }
    assertThat(actual).as(what).isNotNull();
    assertThat(actual.size()).as(what + " size").isEqualTo(expected.size());
    assertThat(actual.truncated()).as(what + " truncated").isEqualTo(expected.truncated());
    assertThat(actual.capturedSize()).as(what + " captured").isEqualTo(expected.capturedSize());
    assertThat(actual.isComplete()).as(what + " complete").isEqualTo(expected.isComplete());
    assertThat(sha256(actual)).as(what + " bytes").isEqualTo(sha256(expected));
  }

  public static String sha256(Body b) {
    try (var in = b.openStream()) {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[64 * 1024];
      int n;
      while ((n = in.read(buf)) > 0) {
        d.update(buf, 0, n);
      }
      return HexFormat.of().formatHex(d.digest());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static void assertSameMessages(String at, List<WebSocketMessage> actual, List<WebSocketMessage> expected) {
    assertThat(actual).as(at + "messages").hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      WebSocketMessage a = actual.get(i);
      WebSocketMessage e = expected.get(i);
      String m = at + "message " + i;
      assertThat(a.direction()).as(m + " direction").isEqualTo(e.direction());
      assertThat(a.opcode()).as(m + " opcode").isEqualTo(e.opcode());
      assertThat(a.payload()).as(m + " payload").isEqualTo(e.payload());
      assertThat(a.length()).as(m + " length").isEqualTo(e.length());
      assertThat(a.time()).as(m + " time").isEqualTo(e.time());
    }
  }

  /** Every duration, and every reading relative to the first non-zero one. */
  public static void assertSameTimings(String at, Timings actual, Timings expected) {
    assertThat(actual.blockedMs()).as(at + "blocked").isEqualTo(expected.blockedMs());
    assertThat(actual.dnsMs()).as(at + "dns").isEqualTo(expected.dnsMs());
    assertThat(actual.connectMs()).as(at + "connect").isEqualTo(expected.connectMs());
    assertThat(actual.sslMs()).as(at + "ssl").isEqualTo(expected.sslMs());
    assertThat(actual.sendMs()).as(at + "send").isEqualTo(expected.sendMs());
    assertThat(actual.waitMs()).as(at + "wait").isEqualTo(expected.waitMs());
    assertThat(actual.receiveMs()).as(at + "receive").isEqualTo(expected.receiveMs());
    if (expected.responseEndNanos() != 0 || expected.failedAtNanos() != 0) {
      assertThat(actual.totalMs()).as(at + "total").isEqualTo(expected.totalMs());
    }
    assertThat(relative(actual)).as(at + "raw readings").isEqualTo(relative(expected));
  }

  private static List<Long> relative(Timings t) {
    long[] r = {t.requestStartNanos(), t.dnsStartNanos(), t.dnsEndNanos(), t.connectStartNanos(), t.connectEndNanos(),
        t.tlsStartNanos(), t.tlsEndNanos(), t.sendStartNanos(), t.sendEndNanos(), t.responseStartNanos(),
        t.responseEndNanos(), t.failedAtNanos()};
    long base = 0;
    for (long v : r) {
      if (v != 0) {
        base = v;
        break;
      }
    }
    Long[] out = new Long[r.length];
    for (int i = 0; i < r.length; i++) {
      out[i] = r[i] == 0 ? null : r[i] - base;
    }
    return java.util.Arrays.asList(out);
  }
}
