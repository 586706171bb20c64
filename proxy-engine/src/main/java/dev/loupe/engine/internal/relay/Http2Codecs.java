package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.EngineConfig;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Settings;

/**
 * HTTP/2 frame codecs for both legs, with Loupe's settings and abuse limits in one place.
 *
 * <p>Client leg (Loupe is the server): large windows (the 65,535-byte default stalls large
 * downloads), {@value #MAX_CONCURRENT_STREAMS} concurrent streams, a header-list limit (HPACK bomb),
 * and Netty's decoder limits for rapid reset (CVE-2023-44487), CONTINUATION floods and queued
 * control frames (SETTINGS/PING floods), each ending the offending connection with GOAWAY.
 */
public final class Http2Codecs {
  static final int STREAM_WINDOW = 1 << 20;
  static final int CONNECTION_WINDOW = 16 << 20;
  static final int MAX_CONCURRENT_STREAMS = 256;

  private Http2Codecs() {}

  /** For a client connection (Loupe serves). */
  static Http2FrameCodec forClientLeg(EngineConfig config) {
    return Http2FrameCodecBuilder.forServer()
        .initialSettings(Http2Settings.defaultSettings()
            .maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
            .initialWindowSize(STREAM_WINDOW)
            .maxHeaderListSize(config.limits().maxHeaderSize()))
        .validateHeaders(true)
        .build();
  }

  /** For an origin connection (Loupe is the client): no push, large windows. */
  public static Http2FrameCodec forServerLeg(EngineConfig config) {
    return Http2FrameCodecBuilder.forClient()
        .initialSettings(Http2Settings.defaultSettings()
            .pushEnabled(false)
            .initialWindowSize(STREAM_WINDOW)
            .maxHeaderListSize(config.limits().maxHeaderSize()))
        .validateHeaders(true)
        .build();
  }
}
