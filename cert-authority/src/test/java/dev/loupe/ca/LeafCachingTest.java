package dev.loupe.ca;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Caching through {@link CertificateAuthority#leafFor}, with real minting. */
@Timeout(60)
class LeafCachingTest {
  @TempDir Path tmp;

  @Test
  void hundredThreadsAskingForOneNewHostMintExactlyOnce() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(tmp);
    ca.leafFor("warm-up.example.com");
    int mintedBefore = ca.mintedCount();
    ExecutorService pool = Executors.newFixedThreadPool(100);
    try {
      CountDownLatch ready = new CountDownLatch(100);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<LeafCertificate>> results = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        results.add(pool.submit(() -> {
          ready.countDown();
          start.await();
          return ca.leafFor("stampede.example.com");
        }));
      }
      ready.await();
      start.countDown();
      LeafCertificate first = results.get(0).get(30, TimeUnit.SECONDS);
      for (Future<LeafCertificate> result : results) {
        LeafCertificate leaf = result.get(30, TimeUnit.SECONDS);
        assertThat(leaf).isSameAs(first);
        assertThat(leaf.certificate()).isSameAs(first.certificate());
      }
      assertThat(ca.mintedCount() - mintedBefore).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void hostsAreCachedByNormalisedName() {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(tmp);
    LeafCertificate lower = ca.leafFor("www.example.com");
    assertThat(ca.leafFor("WWW.Example.COM")).isSameAs(lower);
    assertThat(ca.leafFor("www.example.com.")).isSameAs(lower);
    LeafCertificate v6 = ca.leafFor("::1");
    assertThat(ca.leafFor("[::1]")).isSameAs(v6);
    assertThat(ca.leafFor("2001:DB8::1")).isSameAs(ca.leafFor("[2001:db8::1]"));
    assertThat(ca.mintedCount()).isEqualTo(3);
  }

  @Test
  void cacheIsBoundedAndEvictsLeastRecentlyUsed() {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(tmp, KeyAlgorithm.EC_P256, 3);
    ca.leafFor("a.example.com");
    LeafCertificate b = ca.leafFor("b.example.com");
    ca.leafFor("c.example.com");
    ca.leafFor("a.example.com");
    ca.leafFor("d.example.com"); // evicts b, the least recently used
    assertThat(ca.cachedLeafCount()).isEqualTo(3);
    assertThat(ca.mintedCount()).isEqualTo(4);
    LeafCertificate bAgain = ca.leafFor("b.example.com");
    assertThat(bAgain).isNotSameAs(b);
    assertThat(ca.mintedCount()).isEqualTo(5);
    for (int i = 0; i < 20; i++) {
      ca.leafFor("host" + i + ".example.com");
    }
    assertThat(ca.cachedLeafCount()).isEqualTo(3);
  }

  @Test
  void defaultBoundIsAThousand() {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(tmp);
    for (int i = 0; i < 1_010; i++) {
      ca.leafFor("h" + i + ".example");
    }
    assertThat(ca.cachedLeafCount()).isEqualTo(CertificateAuthority.DEFAULT_MAX_CACHED_LEAVES);
  }

  @Test
  void clearCacheMakesTheNextLookupMint() {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(tmp);
    LeafCertificate first = ca.leafFor("www.example.com");
    ca.clearCache();
    LeafCertificate second = ca.leafFor("www.example.com");
    assertThat(second).isNotSameAs(first);
    assertThat(ca.mintedCount()).isEqualTo(2);
  }

  @Test
  void leafCloseToExpiryIsReminted() {
    FakeClock clock = new FakeClock(Instant.now());
    CertificateAuthority ca =
        CertificateAuthority.loadOrCreate(tmp, KeyAlgorithm.EC_P256, 100, clock);
    LeafCertificate first = ca.leafFor("www.example.com");
    X509Certificate cert = first.certificate();

    clock.advance(Duration.ofDays(363)); // two days left: still served from the cache
    assertThat(ca.leafFor("www.example.com")).isSameAs(first);

    clock.advance(Duration.ofDays(1).plusMinutes(1)); // less than a day left
    LeafCertificate renewed = ca.leafFor("www.example.com");
    assertThat(renewed).isNotSameAs(first);
    assertThat(renewed.certificate().getNotAfter()).isAfter(cert.getNotAfter());
    assertThat(ca.mintedCount()).isEqualTo(2);
    assertThat(ca.leafFor("www.example.com")).isSameAs(renewed);
  }

  @Test
  void leafNeverOutlivesTheCa() {
    // a CA created ten years minus 100 days ago has 100 days left
    FakeClock clock = new FakeClock(Instant.now().minus(Duration.ofDays(3652 - 100)));
    CertificateAuthority.loadOrCreate(tmp, KeyAlgorithm.EC_P256, 10, clock);
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(tmp);
    X509Certificate leaf = ca.leafFor("www.example.com").certificate();
    assertThat(leaf.getNotAfter()).isEqualTo(ca.certificate().getNotAfter());
  }
}
