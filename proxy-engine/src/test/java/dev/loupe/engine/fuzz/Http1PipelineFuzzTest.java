package dev.loupe.engine.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.internal.relay.Http1Harness;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.util.ReferenceCountUtil;

/**
 * Any bytes a client may send on an HTTP/1 connection, through the decoder and client leg Loupe
 * installs ({@link Http1Harness}), cut into TCP reads of fuzzed sizes, on the explicit proxy's
 * listener or inside a CONNECT tunnel (plain or TLS).
 *
 * <p>Must hold for every input: no exception reaches the end of the pipeline; whatever Loupe writes
 * back is well-formed HTTP/1.1 responses (until a CONNECT's 200 turns the connection into a tunnel);
 * once the client has gone, every flow has ended and a failed one says why; no buffer leaks
 * (paranoid leak detection, checked when the class ends).
 *
 * <p>The dictionary is written in libFuzzer's syntax ({@code \xNN} for bytes that are not printable):
 * Jazzer copies the entries into a libFuzzer dictionary file as they are, and a raw CR or LF there
 * stops the fuzzer before it starts.
 *
 * <p>Input: byte 0 picks the side (bits 0-1), the tunnel-everything switch (bit 2) and the read
 * sizes (bits 3-7); the rest is what the client sends.
 */
class Http1PipelineFuzzTest {
  @DictionaryEntries({"GET ", "POST ", "CONNECT ", "HEAD ", " HTTP/1.1\\x0D\\x0A", " HTTP/1.0\\x0D\\x0A",
      "http://a.test/", "https://a.test:443/", "a.test:443", "Host: a.test\\x0D\\x0A", "Content-Length: ",
      "Transfer-Encoding: chunked\\x0D\\x0A", "Connection: close\\x0D\\x0A", "Connection: keep-alive\\x0D\\x0A",
      "Connection: Upgrade\\x0D\\x0A", "Upgrade: websocket\\x0D\\x0A", "Expect: 100-continue\\x0D\\x0A",
      "\\x0D\\x0A\\x0D\\x0A", "0\\x0D\\x0A\\x0D\\x0A", "\\x0D\\x0A", ";ext=1", "Trailer: x\\x0D\\x0A",
      "Content-Encoding: gzip\\x0D\\x0A", "Proxy-Connection: keep-alive\\x0D\\x0A",
      "PRI * HTTP/2.0\\x0D\\x0A\\x0D\\x0ASM\\x0D\\x0A\\x0D\\x0A", "\\x16\\x03\\x01"})
  @FuzzTest(maxDuration = FuzzBudget.IN_BUILD)
  void anyClientBytes(byte[] input) {
    if (input.length == 0) {
      return;
    }
    int control = input[0] & 0xff;
    Http1Harness.Side side = Http1Harness.Side.values()[(control & 3) % 3];
    boolean tunnelEverything = (control & 4) != 0;
    int readSize = 1 + (control >>> 3) * 9; // 1..280 bytes per read
    Http1Harness proxy = new Http1Harness(side, tunnelEverything);
    try {
      for (int off = 1; off < input.length && proxy.connectionOpen(); off += readSize) {
        proxy.clientSends(input, off, Math.min(readSize, input.length - off));
      }
      proxy.channel().checkException();
      checkResponses(proxy.proxyWrote());
    } finally {
      proxy.close();
    }
    for (Flow f : proxy.flows()) {
      assertThat(f.state()).as("flow %s after the client left", f).isNotEqualTo(FlowState.IN_FLIGHT);
      if (f.state() == FlowState.FAILED) {
        assertThat(f.error()).as("failed flow %s", f).isNotNull();
      }
    }
  }

  /**
   * One client connection on {@code side} that sends {@code request} in one read and leaves:
   * checks that nothing was thrown and that Loupe's answer parses; returns the flows it recorded.
   */
  static java.util.List<Flow> exchange(Http1Harness.Side side, boolean tunnelEverything, byte[] request) {
    Http1Harness proxy = new Http1Harness(side, tunnelEverything);
    try {
      proxy.clientSends(request, 0, request.length);
      proxy.channel().checkException();
      checkResponses(proxy.proxyWrote());
    } finally {
      proxy.close();
    }
    return proxy.flows();
  }

  /** Loupe's bytes to the client parse as responses; after a 200 to CONNECT they belong to a tunnel. */
  static void checkResponses(byte[] wrote) {
    if (wrote.length == 0) {
      return;
    }
    EmbeddedChannel client = new EmbeddedChannel(new HttpResponseDecoder());
    try {
      client.writeInbound(Unpooled.wrappedBuffer(wrote));
      Object o;
      while ((o = client.readInbound()) != null) {
        try {
          HttpObject msg = (HttpObject) o;
          assertThat(msg.decoderResult().isSuccess()).as("Loupe wrote a malformed response: %s\n%s",
              msg.decoderResult(), new String(wrote, java.nio.charset.StandardCharsets.ISO_8859_1)).isTrue();
          if (msg instanceof HttpResponse r && r.status().code() == 200
              && r.status().reasonPhrase().equals("Connection established")) {
            return; // the rest is tunnel bytes
          }
        } finally {
          ReferenceCountUtil.release(o);
        }
      }
    } finally {
      client.finishAndReleaseAll();
    }
  }
}
