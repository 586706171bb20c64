package dev.loupe.bench;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of turning one HTTP/1.1 head on the wire into the flow model's head, the way the engine's
 * HTTP/1 legs do: Netty's decoder (configured as the engine configures it, with
 * {@link EngineConfig.Limits#defaults()}) in an {@link EmbeddedChannel}, then
 * {@link Http1Messages#toHeaders} / {@link Http1Messages#toResponseHead}. Score: ns per head.
 *
 * <p>The request is a typical Chrome navigation in origin form, as seen inside an intercepted
 * tunnel; the engine's own absolute-form URI handling lives in a private method of its client leg,
 * so the request head is built here from the tunnel's scheme, host and port as that method does for
 * origin-form targets. The response is a typical HTML response head with a 16-byte body. Each
 * channel lives for the whole trial, like a keep-alive connection carrying one message after
 * another.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 10, time = 1) // the decoder reaches C2 only after about 8 s on a busy 2-core machine
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class Http1HeadParsingBenchmark {
  private static final byte[] REQUEST = ("GET /search?q=loupe+proxy&hl=en HTTP/1.1\r\n"
      + "Host: www.example.com\r\n"
      + "Connection: keep-alive\r\n"
      + "sec-ch-ua: \"Chromium\";v=\"131\", \"Not_A Brand\";v=\"24\"\r\n"
      + "sec-ch-ua-mobile: ?0\r\n"
      + "sec-ch-ua-platform: \"Linux\"\r\n"
      + "Upgrade-Insecure-Requests: 1\r\n"
      + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)"
      + " Chrome/131.0.0.0 Safari/537.36\r\n"
      + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
      + "image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7\r\n"
      + "Sec-Fetch-Site: same-origin\r\n"
      + "Sec-Fetch-Mode: navigate\r\n"
      + "Sec-Fetch-User: ?1\r\n"
      + "Sec-Fetch-Dest: document\r\n"
      + "Referer: https://www.example.com/\r\n"
      + "Accept-Encoding: gzip, deflate, br, zstd\r\n"
      + "Accept-Language: en-GB,en-US;q=0.9,en;q=0.8\r\n"
      + "Cookie: sid=4f9c2a7d1e3b5a6c; theme=dark; consent=1\r\n"
      + "\r\n").getBytes(StandardCharsets.US_ASCII);

  private static final byte[] RESPONSE = ("HTTP/1.1 200 OK\r\n"
      + "Date: Tue, 01 Dec 2026 12:00:00 GMT\r\n"
      + "Content-Type: text/html; charset=utf-8\r\n"
      + "Content-Length: 16\r\n"
      + "Connection: keep-alive\r\n"
      + "Cache-Control: private, max-age=0\r\n"
      + "Content-Security-Policy: default-src 'self'; img-src * data:; script-src 'self' 'nonce-r4nd0m'\r\n"
      + "Strict-Transport-Security: max-age=63072000; includeSubDomains; preload\r\n"
      + "Vary: Accept-Encoding\r\n"
      + "Server: nginx\r\n"
      + "Set-Cookie: sid=4f9c2a7d1e3b5a6c; Path=/; Secure; HttpOnly; SameSite=Lax\r\n"
      + "X-Content-Type-Options: nosniff\r\n"
      + "\r\n"
      + "<!doctype html>\n").getBytes(StandardCharsets.US_ASCII);

  private EmbeddedChannel serverSide;
  private EmbeddedChannel clientSide;

  @Setup(Level.Trial)
  public void openChannels() {
    EngineConfig.Limits limits = EngineConfig.Limits.defaults();
    HttpDecoderConfig config = new HttpDecoderConfig()
        .setMaxInitialLineLength(limits.maxInitialLineLength())
        .setMaxHeaderSize(limits.maxHeaderSize())
        .setMaxChunkSize(limits.maxChunkSize())
        .setAllowDuplicateContentLengths(false)
        .setAllowPartialChunks(true)
        .setStrictLineParsing(true)
        .setUseRfc9112TransferEncoding(true);
    serverSide = new EmbeddedChannel(new HttpRequestDecoder(config));
    clientSide = new EmbeddedChannel(new HttpResponseDecoder(new HttpDecoderConfig()
        .setMaxInitialLineLength(limits.maxInitialLineLength())
        .setMaxHeaderSize(limits.maxHeaderSize())
        .setMaxChunkSize(limits.maxChunkSize())));
  }

  @TearDown(Level.Trial)
  public void closeChannels() {
    serverSide.finishAndReleaseAll();
    clientSide.finishAndReleaseAll();
  }

  /** A browser request head: bytes → HttpRequest → RequestHead. */
  @Benchmark
  public RequestHead requestHead() {
    serverSide.writeInbound(Unpooled.wrappedBuffer(REQUEST));
    HttpRequest req = serverSide.readInbound();
    Object end = serverSide.readInbound(); // LastHttpContent.EMPTY_LAST_CONTENT for a GET
    ReferenceCountUtil.release(end);
    if (req.decoderResult().isFailure()) {
      throw new IllegalStateException("decoder failed", req.decoderResult().cause());
    }
    Headers headers = Http1Messages.toHeaders(req.headers());
    return new RequestHead(req.method().name(), "https", "www.example.com", 443, req.uri(),
        req.protocolVersion().text(), headers);
  }

  /** A response head (and its 16-byte body, released): bytes → HttpResponse → ResponseHead. */
  @Benchmark
  public ResponseHead responseHead() {
    ByteBuf in = Unpooled.wrappedBuffer(RESPONSE);
    clientSide.writeInbound(in);
    HttpResponse res = clientSide.readInbound();
    Object body = clientSide.readInbound();
    ReferenceCountUtil.release(body);
    if (res.decoderResult().isFailure()) {
      throw new IllegalStateException("decoder failed", res.decoderResult().cause());
    }
    return Http1Messages.toResponseHead(res);
  }
}
