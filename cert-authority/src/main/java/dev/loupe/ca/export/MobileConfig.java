package dev.loupe.ca.export;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.HexFormat;
import java.util.UUID;

/**
 * An Apple configuration profile ({@code .mobileconfig}: an XML property list) with one
 * {@code com.apple.security.root} payload holding the CA certificate — what iOS and iPadOS install
 * from Safari (then "Certificate Trust Settings" enables it for TLS), and macOS from System Settings.
 *
 * <p>The payload identifiers and UUIDs derive from the certificate's SHA-256 fingerprint, so
 * downloading the profile again gives the same profile (the device replaces, not duplicates, it),
 * and another Loupe CA gives a different one. Unsigned: devices show it as "Not Verified", as for
 * every self-made profile.
 */
public final class MobileConfig {
  private MobileConfig() {}

  /** The profile for {@code ca}, UTF-8 XML. */
  public static byte[] of(X509Certificate ca) {
    byte[] der;
    try {
      der = ca.getEncoded();
    } catch (CertificateEncodingException e) {
      throw new IllegalArgumentException("cannot encode the CA certificate: " + e.getMessage(), e);
    }
    String fingerprint = HexFormat.of().formatHex(sha256(der));
    String id = fingerprint.substring(0, 16);
    String name = commonName(ca);
    String data = Base64.getMimeEncoder(52, new byte[] {'\n'}).encodeToString(der).replace("\n", "\n\t\t\t");
    String xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
        + "<plist version=\"1.0\">\n<dict>\n"
        + "\t<key>PayloadContent</key>\n\t<array>\n\t\t<dict>\n"
        + "\t\t\t<key>PayloadCertificateFileName</key>\n\t\t\t<string>loupe-ca.cer</string>\n"
        + "\t\t\t<key>PayloadContent</key>\n\t\t\t<data>\n\t\t\t" + data + "\n\t\t\t</data>\n"
        + "\t\t\t<key>PayloadDescription</key>\n\t\t\t<string>Adds the Loupe CA certificate as a trusted root</string>\n"
        + "\t\t\t<key>PayloadDisplayName</key>\n\t\t\t<string>" + xml(name) + "</string>\n"
        + "\t\t\t<key>PayloadIdentifier</key>\n\t\t\t<string>dev.loupe.ca." + id + ".root</string>\n"
        + "\t\t\t<key>PayloadType</key>\n\t\t\t<string>com.apple.security.root</string>\n"
        + "\t\t\t<key>PayloadUUID</key>\n\t\t\t<string>" + uuid("root:" + fingerprint) + "</string>\n"
        + "\t\t\t<key>PayloadVersion</key>\n\t\t\t<integer>1</integer>\n"
        + "\t\t</dict>\n\t</array>\n"
        + "\t<key>PayloadDescription</key>\n\t<string>Lets Loupe (a debugging proxy) show this device's HTTPS traffic."
        + " Remove it when you no longer use Loupe.</string>\n"
        + "\t<key>PayloadDisplayName</key>\n\t<string>Loupe CA (" + xml(name) + ")</string>\n"
        + "\t<key>PayloadIdentifier</key>\n\t<string>dev.loupe.ca." + id + "</string>\n"
        + "\t<key>PayloadOrganization</key>\n\t<string>Loupe</string>\n"
        + "\t<key>PayloadRemovalDisallowed</key>\n\t<false/>\n"
        + "\t<key>PayloadType</key>\n\t<string>Configuration</string>\n"
        + "\t<key>PayloadUUID</key>\n\t<string>" + uuid("profile:" + fingerprint) + "</string>\n"
        + "\t<key>PayloadVersion</key>\n\t<integer>1</integer>\n"
        + "</dict>\n</plist>\n";
    return xml.getBytes(StandardCharsets.UTF_8);
  }

  private static String uuid(String seed) {
    return UUID.nameUUIDFromBytes(seed.getBytes(StandardCharsets.UTF_8)).toString().toUpperCase(java.util.Locale.ROOT);
  }

  static String commonName(X509Certificate cert) {
    String dn = cert.getSubjectX500Principal().getName();
    for (String rdn : dn.split(",")) {
      if (rdn.startsWith("CN=")) {
        return rdn.substring(3).replace("\\", "");
      }
    }
    return dn;
  }

  private static String xml(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }
}
