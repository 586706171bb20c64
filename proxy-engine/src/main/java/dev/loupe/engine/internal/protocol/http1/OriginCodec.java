package dev.loupe.engine.internal.protocol.http1;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.util.AsciiString;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The origin leg's HTTP/1 codec: Netty's {@link HttpClientCodec} as Loupe configures it
 * ({@code parseHttpAfterConnectRequest} and {@code failOnMissingResponse} off), whose decoder
 * takes common header names and status-line words from {@link WireNames} instead of copying them
 * per response (an nginx response's {@code Server}, {@code Date}, {@code Content-Type},
 * {@code Last-Modified}, {@code ETag}, {@code Accept-Ranges}: about 0.4 KB per relayed exchange
 * that {@code HttpClientCodec}'s decoder, which cannot be subclassed, copied).
 *
 * <h3>Pairing requests with responses (as {@code HttpClientCodec} 4.2 does)</h3>
 * The encoder queues the method of every request it writes; the decoder takes one per final
 * response (a 1xx is interim and takes none). A response to {@code HEAD} has no body whatever its
 * framing fields say; a {@code 200} to {@code CONNECT} has none either and ends HTTP on the
 * connection (later bytes pass through as buffers); anything else is framed as Netty's
 * {@link HttpResponseDecoder} frames it (1xx, 204, 304 without a body; Content-Length, chunked,
 * else until close). Parsing, limits and validation (the smuggling defences) are
 * {@link HttpResponseDecoder}'s own, untouched: only the copies of names and words differ, and a
 * plain response head with a Content-Length ({@link FastHead}'s subset, which leaves every other
 * head to Netty's decoder) is read here into the same objects, its values reused while they repeat
 * on the connection.
 *
 * <p>{@code OriginCodecTest} decodes the same byte streams with this codec and with
 * {@code HttpClientCodec} and compares what comes out.
 */
public final class OriginCodec
    extends CombinedChannelDuplexHandler<OriginCodec.Decoder, OriginCodec.Encoder> {
  /** Methods of the requests written, oldest first, waiting for their final responses. */
  private final ArrayDeque<HttpMethod> queue = new ArrayDeque<>();
  /** A CONNECT was answered 200: no more HTTP on this connection. */
  private boolean done;

  public OriginCodec(HttpDecoderConfig config) {
    init(new Decoder(config), new Encoder());
  }

  /**
   * The response side: {@link HttpResponseDecoder} with the pairing above and shared words; a plain
   * response head with a Content-Length ({@link FastHead}'s subset) and its body are read here,
   * making the objects Netty's decoder makes for them, anything else by Netty's decoder.
   */
  final class Decoder extends HttpResponseDecoder implements FastHead.Steps {
    private final FastHead head;

    Decoder(HttpDecoderConfig config) {
      super(config);
      head = new FastHead(false, config);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
      if (done) {
        int readable = actualReadableBytes();
        if (readable == 0) {
          return;
        }
        out.add(buffer.readBytes(readable));
      } else if (head.inBody()) {
        head.body(buffer, out);
      } else if (!head.mayRead() || !head.read(buffer, out, this)) {
        int before = out.size();
        super.decode(ctx, buffer, out);
        head.track(out, before);
      }
    }

    @Override
    public HttpMessage message(byte[] a, int[] w) throws Exception {
      return createMessage(new String[] {
          splitFirstWordInitialLine(a, w[0], w[1] - w[0]),
          splitSecondWordInitialLine(a, w[2], w[3] - w[2]),
          splitThirdWordInitialLine(a, w[4], w[5] - w[4])});
    }

    @Override
    public AsciiString name(byte[] a, int start, int length) {
      return splitHeaderName(a, start, length);
    }

    @Override
    public boolean alwaysEmpty(HttpMessage msg) {
      return isContentAlwaysEmpty(msg);
    }

    @Override
    protected boolean isContentAlwaysEmpty(HttpMessage msg) {
      HttpResponseStatus status = ((HttpResponse) msg).status();
      if (status.codeClass() == HttpStatusClass.INFORMATIONAL) {
        return super.isContentAlwaysEmpty(msg);
      }
      HttpMethod method = queue.poll();
      if (method != null) {
        if (HttpMethod.HEAD.equals(method)) {
          return true;
        }
        if (status.code() == 200 && HttpMethod.CONNECT.equals(method)) {
          done = true;
          queue.clear();
          return true;
        }
      }
      return super.isContentAlwaysEmpty(msg);
    }

    @Override
    protected AsciiString splitHeaderName(byte[] sb, int start, int length) {
      return WireNames.name(sb, start, length);
    }

    @Override
    protected String splitFirstWordInitialLine(byte[] sb, int start, int length) {
      String known = WireNames.version(sb, start, length);
      return known != null ? known : super.splitFirstWordInitialLine(sb, start, length);
    }

    @Override
    protected String splitSecondWordInitialLine(byte[] sb, int start, int length) {
      String known = WireNames.code(sb, start, length);
      return known != null ? known : super.splitSecondWordInitialLine(sb, start, length);
    }

    @Override
    protected String splitThirdWordInitialLine(byte[] sb, int start, int length) {
      String known = WireNames.reason(sb, start, length);
      return known != null ? known : super.splitThirdWordInitialLine(sb, start, length);
    }
  }

  /** The request side: {@link HttpRequestEncoder}, queueing each request's method. */
  final class Encoder extends HttpRequestEncoder {
    @Override
    protected void encode(ChannelHandlerContext ctx, Object msg, List<Object> out) throws Exception {
      if (msg instanceof HttpRequest request) {
        queue.offer(request.method());
      }
      super.encode(ctx, msg, out);
    }
  }
}
