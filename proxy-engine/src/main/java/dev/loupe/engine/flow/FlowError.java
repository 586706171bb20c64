package dev.loupe.engine.flow;

import java.util.Objects;

/**
 * Why a flow failed, and where. Failures are data: they are shown in the UI, printed by the
 * headless printer and written to HAR as {@code _error}.
 *
 * @param kind    the class of failure
 * @param message a human sentence naming the cause and the host, e.g. "DNS lookup failed for nosuch.test"
 */
public record FlowError(Kind kind, String message) {
  /** Classes of failure, roughly in the order a request meets them. */
  public enum Kind {
    /** The client sent something unparseable or ambiguous (400). */
    CLIENT_PROTOCOL,
    /** The name of the origin did not resolve. */
    DNS,
    /** The origin refused the TCP connection. */
    CONNECT_REFUSED,
    /** The TCP connection to the origin timed out. */
    CONNECT_TIMEOUT,
    /** Other connect failures (unreachable network, ...). */
    CONNECT,
    /** The origin's certificate was not trusted or did not match the host. */
    TLS_VERIFY,
    /** The TLS handshake with the origin failed for another reason. */
    TLS_HANDSHAKE,
    /** The TLS handshake with the client failed (e.g. the client does not trust the Loupe CA). */
    CLIENT_TLS,
    /** The origin sent something unparseable. */
    SERVER_PROTOCOL,
    /** The origin closed or reset the connection before the response ended. */
    SERVER_RESET,
    /** The client went away before the exchange ended. */
    CLIENT_ABORT,
    /** The origin did not answer in time. */
    TIMEOUT,
    /** An error inside Loupe. */
    INTERNAL,
    /** A breakpoint (abort) or a rule (block by close or reset) stopped the exchange on purpose. */
    ABORTED
  }

  public FlowError {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(message, "message");
  }

  @Override
  public String toString() {
    return kind + ": " + message;
  }
}
