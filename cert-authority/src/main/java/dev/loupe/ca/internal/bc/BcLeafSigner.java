package dev.loupe.ca.internal.bc;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;

/**
 * Signs TLS server (leaf) certificates for one CA and one leaf public key.
 *
 * <p>Everything that is the same for every leaf (issuer name, AKI, the leaf's SKI, key usages) is
 * encoded once in the constructor; {@link #sign} only adds the subject, SANs, validity and serial,
 * then signs. Profile: basicConstraints critical CA:FALSE; keyUsage critical digitalSignature (plus
 * keyEncipherment for an RSA leaf key, for RSA key transport); EKU serverAuth; SKI; AKI holding only
 * the CA's key identifier (its SKI, so AKI == CA SKI even for an imported CA).
 *
 * <p>Immutable and thread-safe: each {@code sign} call creates its own {@code Signature}.
 */
public final class BcLeafSigner {
  private final PrivateKey caKey;
  private final String signatureAlgorithm;
  private final X500Name issuer;
  private final PublicKey leafKey;
  private final SecureRandom random;
  private final Extension basicConstraints;
  private final Extension keyUsage;
  private final Extension extendedKeyUsage;
  private final Extension subjectKeyIdentifier;
  private final Extension authorityKeyIdentifier;

  /**
   * @param caKey the CA private key
   * @param caCertificate the CA certificate (its subject becomes the issuer)
   * @param signatureAlgorithm JCA name matching {@code caKey}
   * @param leafKey the public key every leaf certifies
   * @param random source of serial numbers
   */
  public BcLeafSigner(
      PrivateKey caKey,
      X509Certificate caCertificate,
      String signatureAlgorithm,
      PublicKey leafKey,
      SecureRandom random) {
    this.caKey = requireNonNull(caKey, "caKey");
    this.signatureAlgorithm = requireNonNull(signatureAlgorithm, "signatureAlgorithm");
    this.leafKey = requireNonNull(leafKey, "leafKey");
    this.random = requireNonNull(random, "random");
    try {
      JcaX509CertificateHolder ca = new JcaX509CertificateHolder(caCertificate);
      this.issuer = ca.getSubject();
      JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
      SubjectKeyIdentifier caSki = SubjectKeyIdentifier.fromExtensions(ca.getExtensions());
      byte[] caKeyId =
          caSki != null
              ? caSki.getKeyIdentifier()
              : utils.createSubjectKeyIdentifier(caCertificate.getPublicKey()).getKeyIdentifier();
      this.authorityKeyIdentifier =
          new Extension(
              Extension.authorityKeyIdentifier,
              false,
              new DEROctetString(new AuthorityKeyIdentifier(caKeyId)));
      this.subjectKeyIdentifier =
          new Extension(
              Extension.subjectKeyIdentifier,
              false,
              new DEROctetString(utils.createSubjectKeyIdentifier(leafKey)));
      this.basicConstraints =
          new Extension(
              Extension.basicConstraints, true, new DEROctetString(new BasicConstraints(false)));
      int usage = KeyUsage.digitalSignature;
      if ("RSA".equals(leafKey.getAlgorithm())) {
        usage |= KeyUsage.keyEncipherment;
      }
      this.keyUsage = new Extension(Extension.keyUsage, true, new DEROctetString(new KeyUsage(usage)));
      this.extendedKeyUsage =
          new Extension(
              Extension.extendedKeyUsage,
              false,
              new DEROctetString(new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth)));
    } catch (CertificateEncodingException | IOException | java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot prepare leaf extensions: " + e.getMessage(), e);
    }
  }

  /**
   * Signs a leaf.
   *
   * @param commonName subject CN, at most 64 characters
   * @param dnsNames dNSName SAN entries
   * @param ipAddresses iPAddress SAN entries, 4 or 16 bytes each
   * @throws IllegalStateException if signing fails (a broken JCA setup, not bad input)
   */
  public X509Certificate sign(
      String commonName,
      List<String> dnsNames,
      List<byte[]> ipAddresses,
      Instant notBefore,
      Instant notAfter) {
    List<GeneralName> names = new ArrayList<>(dnsNames.size() + ipAddresses.size());
    for (String dnsName : dnsNames) {
      names.add(new GeneralName(GeneralName.dNSName, dnsName));
    }
    for (byte[] address : ipAddresses) {
      names.add(new GeneralName(GeneralName.iPAddress, new DEROctetString(address)));
    }
    X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, commonName).build();
    try {
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              issuer,
              BcRootCertificates.randomSerial(random),
              Date.from(notBefore),
              Date.from(notAfter),
              subject,
              leafKey);
      builder.addExtension(basicConstraints);
      builder.addExtension(keyUsage);
      builder.addExtension(extendedKeyUsage);
      builder.addExtension(subjectKeyIdentifier);
      builder.addExtension(authorityKeyIdentifier);
      // Critical when the subject is empty (RFC 5280 4.2.1.6); ours never is, so non-critical.
      builder.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(names.toArray(new GeneralName[0])));
      return Signing.sign(builder, caKey, signatureAlgorithm);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot sign a leaf for " + commonName + ": " + e, e);
    }
  }
}
