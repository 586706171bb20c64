package dev.loupe.ui.flows;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Protocols;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import java.time.Instant;
import java.util.Locale;

/**
 * One line of the flow table: the columns, read from the flow once per UI batch, so the table
 * never touches a flow the engine is still writing.
 *
 * @param status      the final response status, or 0 while there is none
 * @param size        response body bytes seen (for a tunnel: bytes both ways)
 * @param durationMs  total time, or -1 while in flight
 * @param clientProto the client side's protocol, short (h1, h2, h3), or "-"
 * @param serverProto the server side's protocol, short, or "-"
 * @param paused      where the flow waits at a breakpoint, or null
 */
public record FlowRow(long id, Instant time, String method, String host, String path, int status,
    String contentType, long size, double durationMs, String clientProto, String serverProto, FlowTier tier,
    FlowState state, boolean error, Flow.Paused paused, Flow flow) {

  /** The columns of {@code f} as they are now. */
  public static FlowRow of(Flow f) {
    RequestHead req = f.request();
    ResponseHead res = f.response();
    String type = res == null ? "" : nullToEmpty(res.headers().get("content-type"));
    int semicolon = type.indexOf(';');
    long size = f.isTunnel() ? f.tunnelBytesClientToServer() + f.tunnelBytesServerToClient() : f.responseBody().size();
    return new FlowRow(f.id(), f.startedAt(),
        req == null ? "" : req.method(),
        req == null ? "" : req.host(),
        req == null ? "" : f.isTunnel() ? req.authority() : req.target(),
        res == null ? 0 : res.status(),
        semicolon >= 0 ? type.substring(0, semicolon).trim() : type,
        size,
        f.state() == FlowState.IN_FLIGHT ? -1 : f.timings().totalMs(),
        Protocols.shortName(f.clientProtocol()), Protocols.shortName(f.serverProtocol()),
        f.tier(), f.state(), f.error() != null, f.paused(), f);
  }

  /** 335 B, 2.0 KiB, 19 MiB: binary units, as the filter language reads them. */
  public static String humanBytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
