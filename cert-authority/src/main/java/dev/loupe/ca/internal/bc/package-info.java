/**
 * Bouncy Castle glue for {@code dev.loupe.ca}: certificate building and PEM key parsing.
 *
 * <p>The only package in Loupe that imports Bouncy Castle (an ArchUnit test in this module keeps
 * it so). Everything here takes and returns JDK types; callers outside {@code dev.loupe.ca} must
 * not use it. No JCA provider is registered: keys and certificate objects come from the default
 * providers; only ECDSA signing uses a private Bouncy Castle provider instance, for speed (see
 * {@code Signing}).
 */
package dev.loupe.ca.internal.bc;
