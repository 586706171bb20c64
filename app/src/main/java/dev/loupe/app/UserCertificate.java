package dev.loupe.app;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A user-supplied certificate chain and key ({@code --cert}, {@code --key}) for reverse mode. */
record UserCertificate(PrivateKey key, List<X509Certificate> chain) {
  private static final Pattern PKCS8 =
      Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

  static UserCertificate load(Path certFile, Path keyFile) {
    List<X509Certificate> chain = readCertificates(certFile);
    String pem;
    try {
      pem = Files.readString(keyFile, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new LoupeCommand.UsageError("--key: cannot read " + keyFile + ": " + e.getMessage());
    }
    Matcher m = PKCS8.matcher(pem);
    if (!m.find()) {
      throw new LoupeCommand.UsageError("--key: " + keyFile + " is not a PKCS#8 PEM key ('BEGIN PRIVATE KEY');"
          + " convert it with: openssl pkcs8 -topk8 -nocrypt -in KEY -out key.pem");
    }
    byte[] der = Base64.getMimeDecoder().decode(m.group(1));
    for (String algorithm : new String[] {"EC", "RSA", "Ed25519"}) {
      try {
        PrivateKey key = KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        if (!algorithm.equals(chain.get(0).getPublicKey().getAlgorithm())) {
          continue;
        }
        return new UserCertificate(key, chain);
      } catch (Exception e) {
        // try the next algorithm
      }
    }
    throw new LoupeCommand.UsageError("--key: " + keyFile + " does not hold a key for the certificate in " + certFile);
  }

  /** The certificates in a PEM or DER file ({@code --trust-ca}, {@code --cert}); at least one. */
  static List<X509Certificate> readCertificates(Path p) {
    try (InputStream in = Files.newInputStream(p)) {
      List<X509Certificate> out = new ArrayList<>();
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        out.add((X509Certificate) c);
      }
      if (out.isEmpty()) {
        throw new LoupeCommand.UsageError("--trust-ca: no certificate in " + p);
      }
      return out;
    } catch (IOException e) {
      throw new LoupeCommand.UsageError("--trust-ca: cannot read " + p + ": " + e.getMessage());
    } catch (CertificateException e) {
      throw new LoupeCommand.UsageError("--trust-ca: not a PEM or DER certificate: " + p);
    }
  }}
