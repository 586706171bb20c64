package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.internal.protocol.http1.RequestTargets;

/**
 * Where a client's request goes: the {@link RequestHead} its exchange sends, from the target it
 * sent and the side it arrived on. On the explicit proxy a request names its origin (absolute-form);
 * inside a CONNECT tunnel or in reverse mode the side's fixed target decides, whatever the request
 * names. Pure; the parsing rules are {@link RequestTargets}'.
 */
final class RequestHeads {
  private RequestHeads() {}

  /** What a client leg does with a request. */
  sealed interface Decision {}

  /** Refuse it with {@code status}: the origin never sees it. */
  record Refuse(int status, String reason) implements Decision {}

  /** A CONNECT on the explicit proxy: the connection becomes a tunnel to {@code target}. */
  record Connect(RequestTargets.Authority target) implements Decision {}

  /** Send it on as {@code head}. */
  record Forward(RequestHead head) implements Decision {}

  /**
   * What to do with {@code req} on {@code side}: refused (for what its codec found, or a target
   * that cannot be used), a CONNECT tunnel, or forwarded. {@code listening} as for {@link #resolve}.
   */
  static Decision decide(ClientSide side, ClientRequest req, Object listening) {
    if (req.refusal() != 0) {
      return new Refuse(req.refusal(), req.problem());
    }
    try {
      if (req.isConnect()) {
        return side.fixedTarget() ? new Refuse(400, "CONNECT inside an intercepted tunnel is not supported")
            : new Connect(RequestTargets.parseConnect(req.target()));
      }
      return new Forward(resolve(side, req, listening));
    } catch (IllegalArgumentException e) {
      return new Refuse(400, e.getMessage());
    }
  }

  /**
   * The head to send for {@code req} on {@code side}; {@code listening} is named in the answer to
   * a client that sends origin-form requests to the explicit proxy.
   *
   * @throws IllegalArgumentException when the target cannot be used (the message says why)
   */
  static RequestHead resolve(ClientSide side, ClientRequest req, Object listening) {
    String uri = req.target();
    if (RequestTargets.isOriginForm(uri)) {
      if (!side.fixedTarget()) {
        throw new IllegalArgumentException("Loupe is an HTTP proxy: it needs absolute-form requests"
            + " (http://host/path). Configure your client to use " + listening + " as its HTTP and HTTPS proxy.");
      }
      return new RequestHead(req.method(), side.scheme(), side.host(), side.port(), RequestTargets.normalize(uri),
          req.protocol(), req.headers());
    }
    RequestTargets.Absolute a = RequestTargets.parseAbsolute(uri);
    if (side.fixedTarget()) {
      // Absolute-form inside a tunnel: the tunnel decides where it goes.
      return new RequestHead(req.method(), side.scheme(), side.host(), side.port(), a.target(), req.protocol(),
          req.headers());
    }
    return new RequestHead(req.method(), a.scheme(), a.host(), a.port(), a.target(), req.protocol(), req.headers());
  }

  /** The best head to record for a request Loupe refuses: its real target when it resolves. */
  static RequestHead refused(ClientSide side, ClientRequest req) {
    if (!req.malformed() && !req.isConnect()) {
      try {
        return resolve(side, req, null);
      } catch (IllegalArgumentException ignored) {
        // fall through
      }
    }
    String uri = req.target() == null ? "" : req.target();
    boolean fixed = side.fixedTarget();
    String host = fixed ? side.host() : "unknown";
    int port = fixed ? side.port() : 0;
    if (req.isConnect()) {
      return new RequestHead("CONNECT", "https", host, port, uri, req.protocol(), req.headers());
    }
    return new RequestHead(req.method(), fixed ? side.scheme() : "http", host, port, uri.startsWith("/") ? uri : "/",
        req.protocol(), req.headers());
  }

  /** {@code host:port}, an IPv6 literal in brackets. */
  static String authority(String host, int port) {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
