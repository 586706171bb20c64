package dev.loupe.engine.filter;

/**
 * Per-thread buffers that matching reuses instead of allocating: the URL being built, the header
 * line view, and the body bytes with their text view. Confined to its thread; a match fills and
 * uses a buffer before returning, and filters never call each other in the middle of a match.
 */
final class Scratch {
  private static final ThreadLocal<Scratch> CURRENT = ThreadLocal.withInitial(Scratch::new);

  final StringBuilder url = new StringBuilder(256);
  final HeaderLine headerLine = new HeaderLine();
  final Latin1Text text = new Latin1Text();
  /** The body bytes of the last {@link BodyText#read}. */
  final BodyText.Buffer body = new BodyText.Buffer();

  private Scratch() {}

  static Scratch get() {
    return CURRENT.get();
  }
}
