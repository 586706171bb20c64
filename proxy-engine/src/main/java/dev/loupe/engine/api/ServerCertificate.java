package dev.loupe.engine.api;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;

/**
 * A certificate chain (leaf first) and its private key, presented to clients for one host.
 *
 * @param privateKey the leaf's key
 * @param chain      leaf first, then issuers
 */
public record ServerCertificate(PrivateKey privateKey, List<X509Certificate> chain) {
  public ServerCertificate {
    Objects.requireNonNull(privateKey, "privateKey");
    chain = List.copyOf(chain);
    if (chain.isEmpty()) {
      throw new IllegalArgumentException("chain must hold at least the leaf");
    }
  }
}
