package dev.loupe.engine.api.session.model;

/**
 * Flow digests one at a time, ordered by {@link DiffOptions#key} (by code point) and, for equal
 * keys, by id: what {@link dev.loupe.engine.api.session.SessionDiff} merges. {@link dev.loupe.engine.api.session.Session#digests} streams them from a session
 * file; {@link dev.loupe.engine.api.session.SessionDiff#sorted} from a list.
 */
public interface DigestSource extends AutoCloseable {
  /** The next digest, or null after the last. */
  FlowDigest next() throws SessionException;

  /** Flows handed out so far: all of them once {@link #next} returned null. */
  long count();

  @Override
  void close();
}
