package dev.loupe.engine.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import com.code_intelligence.jazzer.mutation.annotation.WithUtf8Length;
import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.LeafCertificate;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Leaf minting for whatever host a client names (SNI, CONNECT target, Host): the certificate
 * authority either refuses the name with an {@link IllegalArgumentException} or mints a leaf
 * signed by the CA, valid now, whose SAN covers the host it was minted for — a dNSName equal to the
 * normalised name, or an iPAddress with the literal's bytes.
 */
class CertHostNameFuzzTest {
  /** Made on first use, after Jazzer's agent is in (see the fuzz execution in the POM). */
  private static final class Authority {
    static final CertificateAuthority CA;

    static {
      try {
        CA = CertificateAuthority.loadOrCreate(Files.createTempDirectory("loupe-fuzz-ca"));
      } catch (IOException e) {
        throw new ExceptionInInitializerError(e);
      }
    }
  }

  @DictionaryEntries({"*.", ".", "[", "]", "::", "::ffff:", "127.0.0.1", "%eth0", "xn--", "\u00e9", "\u3002", "_",
      "-", "localhost", ".example.com"})
  @FuzzTest(maxDuration = FuzzBudget.IN_BUILD)
  void anyHost(@NotNull @WithUtf8Length(max = 300) String host) throws GeneralSecurityException {
    LeafCertificate leaf;
    try {
      leaf = Authority.CA.leafFor(host);
    } catch (IllegalArgumentException refused) {
      return;
    }
    X509Certificate cert = leaf.certificate();
    cert.verify(Authority.CA.certificate().getPublicKey());
    cert.checkValidity();
    assertThat(leaf.host()).isNotEmpty();
    Collection<List<?>> sans = cert.getSubjectAlternativeNames();
    assertThat(sans).as("SANs of the leaf for %s", host).isNotEmpty();
    boolean covered = false;
    for (List<?> san : sans) {
      int type = (Integer) san.get(0);
      String value = (String) san.get(1);
      if (type == 2 && value.equals(leaf.host())) {
        covered = true;
      } else if (type == 7) {
        covered |= sameAddress(value, leaf.host());
      }
    }
    assertThat(covered).as("leaf for %s (normalised %s) has SANs %s", host, leaf.host(), sans).isTrue();
  }

  private static boolean sameAddress(String sanValue, String literal) {
    try {
      byte[] a = InetAddress.getByName(sanValue.indexOf(':') >= 0 ? "[" + sanValue + "]" : sanValue).getAddress();
      byte[] b = InetAddress.getByName(literal.indexOf(':') >= 0 ? "[" + literal + "]" : literal).getAddress();
      return Arrays.equals(a, b) || (b.length == 4 && a.length == 16 && Arrays.equals(Arrays.copyOfRange(a, 12, 16), b));
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }
}
