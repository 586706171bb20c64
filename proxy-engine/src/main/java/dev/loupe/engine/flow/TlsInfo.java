package dev.loupe.engine.flow;

import java.security.cert.X509Certificate;
import java.util.List;

/**
 * What one TLS session looked like.
 *
 * @param sni               server name indication sent (server leg) or received (client leg); may be null
 * @param protocol          e.g. {@code TLSv1.3}
 * @param cipherSuite       e.g. {@code TLS_AES_128_GCM_SHA256}
 * @param alpn              negotiated application protocol, or null
 * @param peerCertificates  the certificate chain the peer presented (server leg), leaf first; empty if none
 * @param verified          whether the peer chain was verified (false with {@code --insecure})
 */
public record TlsInfo(
    String sni,
    String protocol,
    String cipherSuite,
    String alpn,
    List<X509Certificate> peerCertificates,
    boolean verified) {
  public TlsInfo {
    peerCertificates = peerCertificates == null ? List.of() : List.copyOf(peerCertificates);
  }
}
