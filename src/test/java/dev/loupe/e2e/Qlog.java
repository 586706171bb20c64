package dev.loupe.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads the qlog files quiche writes for a QUIC connection (Netty's {@code QuicChannelOption.QLOG}
 * with a directory: one JSON-SEQ file per connection, written as it goes and complete once the
 * connection is closed): the STREAM frames of the packets the connection <em>received</em>, i.e.
 * what its peer put on the wire.
 */
final class Qlog {
  /** One STREAM frame as received: its stream, offset, payload length and FIN bit. */
  record StreamFrame(long streamId, long offset, long length, boolean fin) {}

  private static final Pattern STREAM_FRAME =
      Pattern.compile("\\{\"frame_type\":\"stream\",[^{}]*(?:\\{[^{}]*\\}[^{}]*)*\\}");
  private static final Pattern STREAM_ID = Pattern.compile("\"stream_id\":(\\d+)");
  private static final Pattern OFFSET = Pattern.compile("\"offset\":(\\d+)");
  private static final Pattern LENGTH = Pattern.compile("\"payload_length\":(\\d+)");

  private Qlog() {}

  /** The STREAM frames received on every connection logged in {@code dir}. */
  static List<StreamFrame> receivedStreamFrames(Path dir) {
    List<StreamFrame> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".qlog")).toList()) {
        try (Stream<String> lines = Files.lines(f)) {
          lines.filter(l -> l.contains("\"name\":\"quic:packet_received\"")).forEach(l -> {
            Matcher m = STREAM_FRAME.matcher(l);
            while (m.find()) {
              String frame = m.group();
              out.add(new StreamFrame(number(STREAM_ID, frame), number(OFFSET, frame), number(LENGTH, frame),
                  frame.contains("\"fin\":true")));
            }
          });
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static long number(Pattern p, String s) {
    Matcher m = p.matcher(s);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }
}
