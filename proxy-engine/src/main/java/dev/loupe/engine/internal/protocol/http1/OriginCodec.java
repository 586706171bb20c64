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
 * {@link HttpResponseDecoder}'s own, untouched: only the copies of names and words differ.
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
  final class Decoder extends HttpResponseDecoder {
    private final FastHead head;
    private final int maxChunkSize;
    /** Netty's decoder is between messages: the next bytes start a response. */
    private boolean between = true;
    /** Netty's decoder failed a message or switched protocols: it alone reads from now on. */
    private boolean nettyOnly = !FastHead.available();
    /** Body bytes still to come of a response whose head was read here. */
    private long left;

    Decoder(HttpDecoderConfig config) {
      super(config);
      head = new FastHead(false, config.getMaxInitialLineLength(), config.getMaxHeaderSize());
      maxChunkSize = config.getMaxChunkSize();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
      if (done) {
        int readable = actualReadableBytes();
        if (readable == 0) {
          return;
        }
        out.add(buffer.readBytes(readable));
      } else if (left > 0) {
        body(buffer, out);
      } else if (between && !nettyOnly && head(buffer, out)) {
        return;
      } else {
        int before = out.size();
        int readerIndex = buffer.readerIndex();
        super.decode(ctx, buffer, out);
        track(out, before, buffer.readerIndex() != readerIndex);
      }
    }

    /** Whether Netty's decoder is between messages after its call added {@code out[before..]}. */
    private void track(List<Object> out, int before, boolean read) {
      int n = out.size();
      if (n == before) {
        between &= !read;
        return;
      }
      for (int i = before; i < n; i++) {
        Object o = out.get(i);
        if (o instanceof io.netty.handler.codec.DecoderResultProvider p && p.decoderResult().isFailure()
            || o instanceof HttpResponse r && r.status().code() == 101) {
          nettyOnly = true;
        }
      }
      between = out.get(n - 1) instanceof io.netty.handler.codec.http.LastHttpContent;
    }

    /**
     * Reads a head in {@link FastHead}'s subset as {@code HttpObjectDecoder} would: the same words
     * and names through this decoder's overrides, {@code createMessage}, the fields added in order
     * (Netty's validators run), the decoder result, then the framing of a Content-Length response.
     * False, reading nothing, when the head is not in the subset or a validator refuses it.
     */
    private boolean head(ByteBuf buffer, List<Object> out) throws Exception {
      int length = head.scan(buffer);
      if (length < 0) {
        return false;
      }
      byte[] a = head.bytes;
      int[] w = head.words;
      HttpMessage msg;
      try {
        msg = createMessage(new String[] {
            splitFirstWordInitialLine(a, w[0], w[1] - w[0]),
            splitSecondWordInitialLine(a, w[2], w[3] - w[2]),
            splitThirdWordInitialLine(a, w[4], w[5] - w[4])});
        io.netty.handler.codec.http.HttpHeaders headers = msg.headers();
        for (int i = 0, n = head.fieldCount; i < n; i++) {
          headers.add(splitHeaderName(a, head.nameStart(i), head.nameLength(i)), head.value(i));
        }
      } catch (RuntimeException e) {
        return false; // Netty's decoder reads it again and fails it its way
      }
      buffer.skipBytes(length);
      msg.setDecoderResult(FastHead.decoderResult(head.initialLineLength, head.headerSize));
      if (isContentAlwaysEmpty(msg)) {
        io.netty.handler.codec.http.HttpUtil.setTransferEncodingChunked(msg, false);
        out.add(msg);
        out.add(io.netty.handler.codec.http.LastHttpContent.EMPTY_LAST_CONTENT);
      } else if (head.contentLength == 0) {
        out.add(msg);
        out.add(io.netty.handler.codec.http.LastHttpContent.EMPTY_LAST_CONTENT);
      } else {
        out.add(msg);
        left = head.contentLength;
        between = false;
      }
      return true;
    }

    /** A Content-Length body as {@code HttpObjectDecoder} reads one: slices of at most maxChunkSize. */
    private void body(ByteBuf buffer, List<Object> out) {
      int readable = buffer.readableBytes();
      if (readable == 0) {
        return;
      }
      int toRead = (int) Math.min(Math.min(readable, maxChunkSize), left);
      ByteBuf content = buffer.readRetainedSlice(toRead);
      left -= toRead;
      if (left == 0) {
        out.add(new io.netty.handler.codec.http.DefaultLastHttpContent(content, trailersFactory));
        between = true;
      } else {
        out.add(new io.netty.handler.codec.http.DefaultHttpContent(content));
      }
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
