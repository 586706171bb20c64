/**
 * Everything toward origins, behind {@link dev.loupe.engine.internal.upstream.UpstreamConnector}:
 * pools for HTTP/1.1 ({@code Http1Pool}), HTTP/2 ({@code Http2Upstreams}) and HTTP/3
 * ({@code Http3Upstreams}), dialling ({@code Dialer}: DNS, TCP, the upstream proxy's CONNECT, TLS),
 * connections dialled ahead for an eager CONNECT ({@code PredialedConnections}), upstream TLS
 * contexts ({@code UpstreamTls}), the mapping of failures to {@code FlowError}s
 * ({@code UpstreamErrors}), and Alt-Svc discovery ({@code AltSvc}, {@code AltSvcCache}, {@code AltSvcFrames}), and what the
 * HTTP/2 codec does not surface of an origin connection ({@code OriginFrameTap}: ALTSVC frames in,
 * RST_STREAMs out).
 * It depends on the leaf packages {@code transport} and {@code http3} only, never on the client
 * side ({@code relay}).
 */
package dev.loupe.engine.internal.upstream;
