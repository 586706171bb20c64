package dev.loupe.engine.internal.replay;

import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A {@link RequestDraft} made ready for the wire, once, on the caller's thread: the head with
 * end-to-end fields only and its framing fixed for the body that goes out ({@code Content-Length}
 * set to the encoded body's length, {@code Transfer-Encoding} dropped: the whole body is known), and
 * the body as it goes out ({@link RequestDraft#wireBody()}: re-encoded per {@code Content-Encoding}).
 * Immutable.
 *
 * @param head what is sent, before the server leg's protocol is known ({@code Host} is the URL's
 *             authority)
 * @param body the wire body (never null)
 */
record ReplayRequest(RequestHead head, byte[] body) {
  /** Hop-by-hop fields (RFC 9110 §7.6.1) and those a fixed-length body replaces. */
  private static final Set<String> DROPPED = Set.of(
      "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
      "te", "upgrade", "transfer-encoding", "content-length");
  /** Methods whose requests carry a body by definition: an empty one is sent as Content-Length: 0. */
  private static final Set<String> BODY_METHODS = Set.of("POST", "PUT", "PATCH");

  /**
   * Checks and prepares {@code draft}.
   *
   * @throws IllegalArgumentException for a URL that is not absolute http(s), an invalid method, or a
   *     header field Loupe cannot send (invalid name, CR/LF/NUL in a value)
   */
  static ReplayRequest of(RequestDraft draft) {
    RequestHead parsed = draft.toHead();
    byte[] wire = draft.wireBody();
    Headers in = parsed.headers();
    Set<String> drop = new HashSet<>(DROPPED);
    for (String v : in.getAll("connection")) {
      for (String token : v.split(",")) {
        String t = token.trim().toLowerCase(Locale.ROOT);
        if (!t.isEmpty() && !t.equals("host")) {
          drop.add(t);
        }
      }
    }
    boolean framed = in.contains("content-length") || in.contains("transfer-encoding");
    List<Headers.Field> out = new ArrayList<>(in.size() + 2);
    boolean hostSeen = false;
    boolean lengthPlaced = false;
    boolean needsLength = wire.length > 0 || framed || BODY_METHODS.contains(parsed.method());
    for (Headers.Field f : in.fields()) {
      String name = f.name().trim();
      if (name.startsWith(":")) {
        continue; // an HTTP/2 or HTTP/3 pseudo-header pasted into the editor: the URL decides
      }
      checkField(name, f.value());
      String lower = name.toLowerCase(Locale.ROOT);
      if (lower.equals("host")) {
        if (!hostSeen) {
          out.add(new Headers.Field(name, parsed.authority()));
          hostSeen = true;
        }
        continue;
      }
      if (lower.equals("te") && f.value().trim().equalsIgnoreCase("trailers")) {
        out.add(new Headers.Field(name, f.value()));
        continue;
      }
      if (lower.equals("content-length") && needsLength && !lengthPlaced) {
        out.add(new Headers.Field(name, Integer.toString(wire.length))); // where the draft had it
        lengthPlaced = true;
        continue;
      }
      if (drop.contains(lower)) {
        continue;
      }
      out.add(new Headers.Field(name, f.value()));
    }
    if (!hostSeen) {
      out.add(0, new Headers.Field("Host", parsed.authority()));
    }
    if (needsLength && !lengthPlaced) {
      out.add(new Headers.Field("Content-Length", Integer.toString(wire.length)));
    }
    return new ReplayRequest(parsed.withHeaders(Headers.of(out)), wire);
  }

  private static void checkField(String name, String value) {
    if (name.isEmpty() || name.chars().anyMatch(c -> c <= ' ' || c >= 127 || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0)) {
      throw new IllegalArgumentException("invalid header name: \"" + name + "\"");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\r' || c == '\n' || c == 0) {
        throw new IllegalArgumentException("CR, LF or NUL in the value of header " + name);
      }
    }
  }

  /**
   * The message for a server-leg pipeline (HTTP/1.1 codec, or the HTTP/2 / HTTP/3 adapters): this
   * head, {@code wireBody} (this request's {@link #body}, as the exchange hands it back to send) and
   * {@code trailers}.
   */
  FullHttpRequest toNetty(ByteBuf wireBody, Headers trailers) {
    return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(head.method()), head.target(),
        wireBody, toNetty(head.headers()), toNetty(trailers));
  }

  private static DefaultHttpHeaders toNetty(Headers fields) {
    DefaultHttpHeaders h = new DefaultHttpHeaders();
    for (Headers.Field f : fields.fields()) {
      h.add(f.name(), f.value());
    }
    return h;
  }

  /**
   * The head the flow records once the server leg speaks {@code protocol}: the fields as sent, with
   * {@code Host} left out on HTTP/2 and HTTP/3 (it travels as {@code :authority}, which the head's
   * host and port already say), as the client leg records requests of those versions.
   */
  RequestHead recorded(String protocol, boolean multiplexed) {
    Headers h = multiplexed ? head.headers().without("host") : head.headers();
    return new RequestHead(head.method(), head.scheme(), head.host(), head.port(), head.target(), protocol, h);
  }
}
