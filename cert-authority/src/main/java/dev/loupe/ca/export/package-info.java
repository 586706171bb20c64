/**
 * The CA certificate in the forms clients install it from, beyond PEM and DER
 * ({@link dev.loupe.ca.CertificateAuthority#exportPem}): an Apple configuration profile
 * ({@link dev.loupe.ca.export.MobileConfig}, iOS, iPadOS, macOS), a Java trust store
 * ({@link dev.loupe.ca.export.JavaTrustStore}, for {@code JAVA_TOOL_OPTIONS}), and the pin Chromium
 * accepts on its command line ({@link dev.loupe.ca.export.SpkiPin}).
 *
 * <p>Pure functions of the certificate (the trust store also reads the JDK's own); no state.
 */
package dev.loupe.ca.export;
