package dev.loupe.ca.internal.bc;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/** Parses PEM private keys with Bouncy Castle's lenient PEM reader. Stateless; thread-safe. */
public final class BcPem {
  private BcPem() {}

  /**
   * The first private key in {@code pem}: PKCS#8 ({@code PRIVATE KEY}, what Loupe writes), or the
   * OpenSSL traditional forms ({@code EC PRIVATE KEY}, {@code RSA PRIVATE KEY}) a user may bring.
   * The returned key comes from the default JCA provider, like the keys Loupe generates.
   *
   * @throws IOException with a one-line reason when there is no usable unencrypted key
   */
  public static PrivateKey readPrivateKey(byte[] pem) throws IOException {
    Object object;
    try (PEMParser parser =
        new PEMParser(new InputStreamReader(new ByteArrayInputStream(pem), StandardCharsets.US_ASCII))) {
      object = parser.readObject();
    } catch (RuntimeException e) { // Bouncy Castle reports bad base64 / DER as unchecked exceptions
      throw new IOException("malformed PEM (" + e.getMessage() + ")", e);
    }
    if (object == null) {
      throw new IOException("no PEM private key found");
    }
    JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
    try {
      if (object instanceof PrivateKeyInfo) {
        return converter.getPrivateKey((PrivateKeyInfo) object);
      }
      if (object instanceof PEMKeyPair) {
        return converter.getKeyPair((PEMKeyPair) object).getPrivate();
      }
    } catch (IOException | RuntimeException e) {
      throw new IOException("malformed private key (" + e.getMessage() + ")", e);
    }
    if (object instanceof PKCS8EncryptedPrivateKeyInfo || object instanceof PEMEncryptedKeyPair) {
      throw new IOException("the key is encrypted; Loupe needs an unencrypted PKCS#8 key");
    }
    throw new IOException("expected a private key, found " + object.getClass().getSimpleName());
  }
}
