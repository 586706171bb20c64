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
    // Every abuse limit is stated here, even where it equals Netty's default, so that a Netty
    // upgrade cannot loosen one silently. Http2AbuseTest (e2e) drives each over the wire.
    return Http2FrameCodecBuilder.forServer()
        .initialSettings(Http2Settings.defaultSettings()
            .maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
            .initialWindowSize(STREAM_WINDOW)
            // HPACK bomb: a header list decoding past this is refused per stream (431) while the
            // decoder keeps its table in sync; an encoded block past 1.25 x this is a connection
            // error (PROTOCOL_ERROR), which also caps a CONTINUATION flood of large frames.
            .maxHeaderListSize(config.limits().maxHeaderSize()))
        .validateHeaders(true)
        // Rapid reset (CVE-2023-44487): each stream a client opens and cancels at once still costs
        // an exchange (and possibly an upstream connect). More RST_STREAMs than this per window
        // from one connection: GOAWAY ENHANCE_YOUR_CALM. Browsers cancel far fewer.
        .decoderEnforceMaxRstFramesPerWindow(200, 30)
        // The mirror image: a client making us reset its streams (e.g. REFUSED_STREAM beyond
        // MAX_CONCURRENT_STREAMS, stream errors) gets the same cap.
        .encoderEnforceMaxRstFramesPerWindow(200, 30)
        // CONTINUATION flood: a header block fed in tiny fragments is never "too large" but costs
        // a frame each; after this many small (< 8 KiB) ones: GOAWAY ENHANCE_YOUR_CALM.
        .decoderEnforceMaxSmallContinuationFrames(16)
        // SETTINGS / PING (and RST) floods by a client that does not read: acknowledgements pile up
        // in our outbound buffer; past this many unwritten control frames the connection is closed
        // (the GOAWAY cannot reach a peer that does not read). ~17 bytes each: a few hundred KiB.
        .encoderEnforceMaxQueuedControlFrames(10_000)
        // Empty DATA frames without END_STREAM have no use but cost a dispatch each.
        .decoderEnforceMaxConsecutiveEmptyDataFrames(2)
        .build();
  }

  /**
   * For an origin connection (Loupe is the client): no push, large windows, ALTSVC frames read,
   * RST_STREAMs sent counted.
   */
  public static Http2FrameCodec forServerLeg(EngineConfig config) {
    return Http2FrameCodecBuilder.forClient()
        .initialSettings(Http2Settings.defaultSettings()
            .pushEnabled(false)
            .initialWindowSize(STREAM_WINDOW)
            .maxHeaderListSize(config.limits().maxHeaderSize()))
        .validateHeaders(true)
        // Sees ALTSVC frames (RFC 7838 §4), which the codec drops, for the Alt-Svc cache, and
        // counts the RST_STREAMs Loupe sends, so that a connection retires before the origin's
        // rapid-reset defence closes it (Http2Upstreams).
        .frameLogger(new dev.loupe.engine.internal.upstream.OriginFrameTap())
        .build();
  }
}
