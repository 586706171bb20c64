package dev.loupe.app.control;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.Timings;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.flow.WebSocketMessage;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;

/**
 * The parts of {@code GET /flows/ID} beyond heads and bodies: timings, both legs' connections
 * (addresses, TLS, the origin's certificate chain), 1xx responses and WebSocket messages.
 */
final class ControlFlowJson {
  /** WebSocket messages listed per flow (the newest are kept when there are more). */
  static final int MAX_MESSAGES = 500;
  /** Bytes of each WebSocket payload shown. */
  static final int MAX_MESSAGE_BYTES = 4096;

  private ControlFlowJson() {}

  /** Adds {@code timings}, {@code clientConnection}, {@code serverConnection}, and the rest when present. */
  static void addExtras(ObjectNode o, Flow f) {
    o.set("timings", timings(f.timings()));
    o.set("clientConnection", connection(f.clientConnection()));
    o.set("serverConnection", connection(f.serverConnection()));
    if (f.http3Status() != null) {
      o.put("http3", f.http3Status());
    }
    List<ResponseHead> informational = f.informationalResponses();
    if (!informational.isEmpty()) {
      ArrayNode a = o.putArray("informational");
      for (ResponseHead h : informational) {
        ObjectNode r = a.addObject();
        r.put("status", h.status());
        r.put("reason", h.reason());
        r.set("headers", ControlJson.headers(h.headers()));
      }
    }
    if (f.isTunnel()) {
      o.put("tunnelBytesClientToServer", f.tunnelBytesClientToServer());
      o.put("tunnelBytesServerToClient", f.tunnelBytesServerToClient());
    }
    if (f.isWebSocket()) {
      o.set("webSocket", webSocket(f));
    }
  }

  /** Milliseconds per phase, -1 when the phase did not happen (HAR's convention). */
  static ObjectNode timings(Timings t) {
    ObjectNode o = ControlJson.object();
    o.put("blockedMs", t.blockedMs());
    o.put("dnsMs", t.dnsMs());
    o.put("connectMs", t.connectMs());
    o.put("tlsMs", t.sslMs());
    o.put("sendMs", t.sendMs());
    o.put("waitMs", t.waitMs());
    o.put("receiveMs", t.receiveMs());
    o.put("totalMs", t.totalMs());
    return o;
  }

  private static ObjectNode connection(ConnectionInfo c) {
    if (c == null) {
      return null;
    }
    ObjectNode o = ControlJson.object();
    o.put("id", c.id());
    o.put("remoteAddress", address(c.remoteAddress()));
    o.put("localAddress", address(c.localAddress()));
    o.put("reused", c.reused());
    TlsInfo tls = c.tls();
    if (tls == null) {
      o.putNull("tls");
      return o;
    }
    ObjectNode t = o.putObject("tls");
    t.put("sni", tls.sni());
    t.put("protocol", tls.protocol());
    t.put("cipherSuite", tls.cipherSuite());
    t.put("alpn", tls.alpn());
    t.put("verified", tls.verified());
    ArrayNode chain = t.putArray("peerCertificates");
    for (X509Certificate cert : tls.peerCertificates()) {
      ObjectNode ce = chain.addObject();
      ce.put("subject", cert.getSubjectX500Principal().getName());
      ce.put("issuer", cert.getIssuerX500Principal().getName());
      ce.put("notBefore", cert.getNotBefore().toInstant().toString());
      ce.put("notAfter", cert.getNotAfter().toInstant().toString());
      ce.put("serial", cert.getSerialNumber().toString(16));
    }
    return o;
  }

  private static String address(InetSocketAddress a) {
    return a == null ? null : a.getHostString() + ":" + a.getPort();
  }

  private static ObjectNode webSocket(Flow f) {
    ObjectNode o = ControlJson.object();
    List<WebSocketMessage> all = f.webSocketMessages();
    o.put("messageCount", all.size());
    if (f.webSocketCloseCode() >= 0) {
      o.put("closeCode", f.webSocketCloseCode());
      o.put("closeReason", f.webSocketCloseReason());
    }
    int from = Math.max(0, all.size() - MAX_MESSAGES);
    if (from > 0) {
      o.put("messagesOmitted", from);
    }
    ArrayNode a = o.putArray("messages");
    for (WebSocketMessage m : all.subList(from, all.size())) {
      ObjectNode mo = a.addObject();
      mo.put("direction", m.direction() == WebSocketMessage.Direction.CLIENT_TO_SERVER ? "client" : "server");
      mo.put("opcode", opcode(m.opcode()));
      mo.put("time", m.time().toString());
      mo.put("length", m.length());
      byte[] p = m.payload();
      boolean cut = p.length > MAX_MESSAGE_BYTES;
      if (cut) {
        p = java.util.Arrays.copyOf(p, MAX_MESSAGE_BYTES);
      }
      ControlJson.putBody(mo, p);
      if (cut || m.truncated()) {
        mo.put("truncated", true);
      }
    }
    return o;
  }

  private static String opcode(int op) {
    return switch (op) {
      case WebSocketMessage.TEXT -> "text";
      case WebSocketMessage.BINARY -> "binary";
      case WebSocketMessage.CLOSE -> "close";
      case WebSocketMessage.PING -> "ping";
      case WebSocketMessage.PONG -> "pong";
      default -> "0x" + Integer.toHexString(op).toLowerCase(Locale.ROOT);
    };
  }
}
