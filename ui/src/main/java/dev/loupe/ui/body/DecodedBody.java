package dev.loupe.ui.body;

import java.util.List;

/**
 * A body made ready for viewing: the bytes after undoing its content codings, at most the decode
 * limit of them.
 *
 * @param bytes   the decoded bytes (or the wire bytes when nothing was decoded), at most the limit
 * @param decoded the codings undone, in the order the sender applied them ({@code [gzip]}); empty
 *                when the bytes are as on the wire
 * @param limited whether there was more than the limit (the rest is not shown)
 * @param error   why decoding stopped early or was not attempted (corrupt data, an unknown
 *                coding, no native decoder), or null
 */
public record DecodedBody(byte[] bytes, List<String> decoded, boolean limited, String error) {
  public DecodedBody {
    decoded = List.copyOf(decoded);
  }

  public static DecodedBody empty() {
    return new DecodedBody(new byte[0], List.of(), false, null);
  }
}
