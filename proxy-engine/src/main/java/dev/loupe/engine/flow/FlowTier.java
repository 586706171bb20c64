package dev.loupe.engine.flow;

/** How much of a flow the engine decodes. See DESIGN.md, "Relay is the default". */
public enum FlowTier {
  /** Opaque bytes both ways; nothing decrypted or parsed (ignore-hosts, non-TLS CONNECT). */
  TUNNEL,
  /** Messages parsed and captured, bodies forwarded buffer by buffer without copy or re-encode. */
  RELAY,
  /** A rule, breakpoint or plugin sees and may edit the messages. */
  FULL
}
