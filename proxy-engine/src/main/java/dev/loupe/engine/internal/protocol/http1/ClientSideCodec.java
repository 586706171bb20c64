package dev.loupe.engine.internal.protocol.http1;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;

/**
 * The client leg's HTTP/1 codec: Netty's {@link HttpServerCodec} 4.2 (default pipelining depth 128),
 * whose decoder reads a plain request head itself ({@link FastHead}: the objects Netty's decoder
 * makes, a field value equal to the previous request's at its position reused, so a keep-alive
 * client's {@code Host}, {@code User-Agent}, {@code Accept}, cookies come as Strings once) and takes
 * common header names from {@link WireNames}; the target String is the previous request's when the
 * bytes are the same. Anything outside {@link FastHead}'s subset, and every limit, validator and
 * smuggling check, is {@link HttpRequestDecoder}'s own.
 *
 * <h3>What it keeps of {@code HttpServerCodec} (read from its 4.2.18 bytecode)</h3>
 * The decoder queues each request's method (HEAD, CONNECT or other; 32 in a {@code long}, the rest
 * in a queue); a request beyond {@code maxPipelineDepth} unanswered ones releases what the read
 * decoded, marks the connection to close after the current response, discards all later bytes and
 * fails with {@code IllegalStateException}. A request with both Transfer-Encoding: chunked and
 * Content-Length loses the Content-Length (Netty's default) and closes the connection after its
 * response. The encoder takes one method per final response: a response to HEAD has no body, a 2xx
 * to CONNECT loses Transfer-Encoding; the end of the response that must close the connection
 * closes it once written.
 *
 * <p>{@code ClientSideCodecTest} decodes and encodes the same streams with this codec and with
 * {@code HttpServerCodec} and compares what comes out.
 */
public final class ClientSideCodec
    extends CombinedChannelDuplexHandler<ClientSideCodec.Decoder, ClientSideCodec.Encoder> {
  private static final byte HEAD = 1;
  private static final byte CONNECT = 2;
  private static final byte OTHER = 3;
  private static final int INLINE = 32;

  private final int maxPipelineDepth;
  private long methodQueue;
  private int methodQueueSize;
  private Queue<Byte> overflow;
  private boolean mustCloseAfterResponse;

  public ClientSideCodec(HttpDecoderConfig config) {
    this(config, 128);
  }

  ClientSideCodec(HttpDecoderConfig config, int maxPipelineDepth) {
    if (maxPipelineDepth <= 0) {
      throw new IllegalArgumentException("maxPipelineDepth: " + maxPipelineDepth + " (expected: > 0)");
    }
    this.maxPipelineDepth = maxPipelineDepth;
    init(new Decoder(config), new Encoder());
  }

  private boolean enqueue(HttpMethod method) {
    Queue<Byte> q = overflow;
    if (methodQueueSize + (q == null ? 0 : q.size()) >= maxPipelineDepth) {
      return false;
    }
    byte flag = HttpMethod.HEAD.equals(method) ? HEAD : HttpMethod.CONNECT.equals(method) ? CONNECT : OTHER;
    if (q != null) {
      q.add(flag);
    } else if (methodQueueSize < INLINE) {
      methodQueue |= (long) flag << (methodQueueSize << 1);
      methodQueueSize++;
    } else {
      q = new ArrayDeque<>(4);
      q.add(flag);
      overflow = q;
    }
    return true;
  }

  private byte poll() {
    if (methodQueueSize != 0) {
      byte flag = (byte) (methodQueue & 3);
      methodQueue >>>= 2;
      methodQueueSize--;
      return flag;
    }
    Queue<Byte> q = overflow;
    if (q == null) {
      return OTHER;
    }
    Byte flag = q.poll();
    if (q.isEmpty()) {
      overflow = null;
    }
    return flag != null ? flag : OTHER;
  }

  /** The request side: {@link HttpRequestDecoder}, plain heads read by {@link FastHead}, methods queued. */
  public final class Decoder extends HttpRequestDecoder implements FastHead.Steps {
    private final FastHead head;
    private boolean discard;
    /** The previous request's target, reused when the next one's bytes are the same. */
    private String target;

    Decoder(HttpDecoderConfig config) {
      super(config);
      head = new FastHead(true, config);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
      if (discard) {
        buffer.skipBytes(buffer.readableBytes());
        return;
      }
      int before = out.size();
      if (head.inBody()) {
        head.body(buffer, out);
      } else if (!head.mayRead() || !head.read(buffer, out, this)) {
        super.decode(ctx, buffer, out);
        head.track(out, before);
      }
      for (int i = before, n = out.size(); i < n; i++) {
        Object o = out.get(i);
        if (o instanceof HttpRequest request && !enqueue(request.method())) {
          mustCloseAfterResponse = true;
          discard = true;
          for (int j = i; j < n; j++) {
            ReferenceCountUtil.release(out.get(j));
          }
          out.clear();
          throw new IllegalStateException("maxPipelineDepth exceeded: " + maxPipelineDepth);
        }
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
    protected AsciiString splitHeaderName(byte[] sb, int start, int length) {
      return WireNames.name(sb, start, length);
    }

    @Override
    @SuppressWarnings("deprecation")
    protected String splitSecondWordInitialLine(byte[] sb, int start, int length) {
      String prev = target;
      if (FastHead.same(prev, sb, start, length)) {
        return prev;
      }
      String s = new String(sb, 0, start, length);
      target = s;
      return s;
    }

    @Override
    protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
      super.handleTransferEncodingChunkedWithContentLength(message);
      mustCloseAfterResponse = true;
    }
  }

  /** The response side: {@link HttpResponseEncoder} with the method of the request each answers. */
  public final class Encoder extends HttpResponseEncoder {
    private byte methodFlag;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
      if (mustCloseAfterResponse && msg instanceof LastHttpContent) {
        mustCloseAfterResponse = false;
        promise = promise.unvoid().addListener(ChannelFutureListener.CLOSE);
      }
      super.write(ctx, msg, promise);
    }

    @Override
    protected void sanitizeHeadersBeforeEncode(HttpResponse msg, boolean isAlwaysEmpty) {
      if (!isAlwaysEmpty && methodFlag == CONNECT && msg.status().codeClass() == HttpStatusClass.SUCCESS) {
        msg.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
        return;
      }
      super.sanitizeHeadersBeforeEncode(msg, isAlwaysEmpty);
    }

    @Override
    protected boolean isContentAlwaysEmpty(HttpResponse msg) {
      if (msg.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
        return super.isContentAlwaysEmpty(msg);
      }
      methodFlag = poll();
      return methodFlag == HEAD || super.isContentAlwaysEmpty(msg);
    }
  }
}
