package dev.loupe.engine.internal.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.internal.upstream.AltSvc.Alternative;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Alt-Svc parser against RFC 7838's examples and the forms origins send. */
class AltSvcTest {
  private static final long DAY = AltSvc.DEFAULT_MAX_AGE_SECONDS;

  @Test
  void rfc7838Examples() {
    // §3
    assertThat(AltSvc.parse("h2=\":8000\"").alternatives()).containsExactly(new Alternative("h2", null, 8000, DAY));
    assertThat(AltSvc.parse("h2=\"new.example.org:80\"").alternatives())
        .containsExactly(new Alternative("h2", "new.example.org", 80, DAY));
    // §3: percent-encoded protocol id ("w=x:y#z")
    assertThat(AltSvc.parse("w%3Dx%3Ay#z=\":443\"").alternatives())
        .containsExactly(new Alternative("w=x:y#z", null, 443, DAY));
    // §3.1: several alternatives in preference order; ma; persist (read, not used)
    assertThat(AltSvc.parse("h2=\"alt.example.com:8000\", h2=\":443\"").alternatives()).containsExactly(
        new Alternative("h2", "alt.example.com", 8000, DAY), new Alternative("h2", null, 443, DAY));
    assertThat(AltSvc.parse("h2=\":443\"; ma=3600").alternatives())
        .containsExactly(new Alternative("h2", null, 443, 3600));
    assertThat(AltSvc.parse("h2=\":443\"; persist=1").alternatives())
        .containsExactly(new Alternative("h2", null, 443, DAY));
    // §3: clear (case-sensitive)
    assertThat(AltSvc.parse("clear").clear()).isTrue();
    assertThat(AltSvc.parse("clear").alternatives()).isEmpty();
    assertThat(AltSvc.parse("CLEAR").clear()).isFalse();
  }

  @Test
  void whatOriginsSend() {
    // Google / Cloudflare style: h3 and a draft version, each with ma
    assertThat(AltSvc.parse("h3=\":443\"; ma=86400, h3-29=\":443\"; ma=86400").alternatives()).containsExactly(
        new Alternative("h3", null, 443, 86400), new Alternative("h3-29", null, 443, 86400));
    // quoted parameter values, odd spacing, unknown parameters, empty list elements
    assertThat(AltSvc.parse(" ,h3=\":4433\" ;ma=\"60\" ; foo=bar ,, h2=\":443\"").alternatives()).containsExactly(
        new Alternative("h3", null, 4433, 60), new Alternative("h2", null, 443, DAY));
    // IPv6 literal, upper-case host
    assertThat(AltSvc.parse("h3=\"[::1]:4433\", h3=\"Alt.Example.COM:443\"").alternatives()).containsExactly(
        new Alternative("h3", "::1", 4433, DAY), new Alternative("h3", "alt.example.com", 443, DAY));
    // escaped characters in the quoted authority
    assertThat(AltSvc.parse("h3=\"\\:443\"").alternatives()).containsExactly(new Alternative("h3", null, 443, DAY));
    // several field lines are one list; a clear anywhere clears
    assertThat(AltSvc.parse(List.of("h3=\":1\"", "h2=\":2\"")).alternatives())
        .extracting(Alternative::port).containsExactly(1, 2);
    assertThat(AltSvc.parse(List.of("h3=\":1\"", "clear")).clear()).isTrue();
  }

  @Test
  void malformedAlternativesAreSkippedNotTheRest() {
    assertThat(AltSvc.parse("h3=:443, h3=\":abc\", h3=\":0\", h3=\":70000\", h3=\"nohost\", h3=\":443\"; ma=-1, "
        + "h3=\":8443\"; ma=5").alternatives()).containsExactly(new Alternative("h3", null, 8443, 5));
    // a comma inside a quoted string does not split the list
    assertThat(AltSvc.parse("x=\"a,b:1\", h3=\":2\"").alternatives()).extracting(Alternative::protocol)
        .containsExactly("x", "h3");
    assertThat(AltSvc.parse("h3=\":443").alternatives()).as("unterminated quote").isEmpty();
    assertThat(AltSvc.parse("").alternatives()).isEmpty();
    assertThat(AltSvc.parse((String) null).alternatives()).isEmpty();
    // a huge max-age is capped, not an overflow
    assertThat(AltSvc.parse("h3=\":1\"; ma=99999999999999999999").alternatives().get(0).maxAgeSeconds())
        .isEqualTo(2_147_483_648L);
  }

  @Test
  void cacheRemembersExpiresClearsAndMarksBroken() {
    AltSvcCache cache = new AltSvcCache();
    String o = "https://example.com:443";
    long now = 1_000_000_000_000L;
    assertThat(cache.choose(o, now).reason()).isEqualTo("no Alt-Svc");

    cache.advertised(o, AltSvc.parse("h3-29=\":443\", h3=\":8443\"; ma=10"), 0, now);
    assertThat(cache.choose(o, now).endpoint()).isEqualTo(new AltSvcCache.Endpoint(null, 8443));
    assertThat(cache.choose(o, now + 9_999_000_000L).endpoint()).isNotNull();
    assertThat(cache.choose(o, now + 10_000_000_000L).reason()).isEqualTo("Alt-Svc h3 expired");
    assertThat(cache.choose(o, now + 10_000_000_000L).reason()).isEqualTo("no Alt-Svc");

    // Age counts against ma; an alternative already stale is not kept
    cache.advertised(o, AltSvc.parse("h3=\":8443\"; ma=10"), 4, now);
    assertThat(cache.choose(o, now + 6_500_000_000L).reason()).isEqualTo("Alt-Svc h3 expired");
    cache.advertised(o, AltSvc.parse("h3=\":8443\"; ma=10"), 10, now);
    assertThat(cache.choose(o, now).reason()).isEqualTo("no Alt-Svc");

    // clear, and a new list without h3, forget
    cache.advertised(o, AltSvc.parse("h3=\"alt.example.com:443\""), 0, now);
    assertThat(cache.choose(o, now).endpoint()).isEqualTo(new AltSvcCache.Endpoint("alt.example.com", 443));
    cache.advertised(o, AltSvc.parse("clear"), 0, now);
    assertThat(cache.choose(o, now).reason()).isEqualTo("no Alt-Svc");
    cache.advertised(o, AltSvc.parse("h3=\":443\""), 0, now);
    cache.advertised(o, AltSvc.parse("h2=\":443\""), 0, now);
    assertThat(cache.choose(o, now).reason()).isEqualTo("no Alt-Svc");
    assertThat(cache.size()).isZero();

    // broken: TCP for five minutes even while advertised, then HTTP/3 again
    cache.advertised(o, AltSvc.parse("h3=\":443\""), 0, now);
    cache.broken(o, "QUIC failed: timeout", now);
    assertThat(cache.choose(o, now + 1).reason()).startsWith("h3 marked broken until ").endsWith("(QUIC failed: timeout)");
    cache.advertised(o, AltSvc.parse("h3=\":443\""), 0, now + 2);
    assertThat(cache.choose(o, now + 3).endpoint()).isNull();
    assertThat(cache.choose(o, now + AltSvcCache.BROKEN_FOR.toNanos()).endpoint())
        .isEqualTo(new AltSvcCache.Endpoint(null, 443));
  }

  @Test
  void recoveredClearsTheBrokenMark() {
    AltSvcCache cache = new AltSvcCache();
    String o = "https://example.com:443";
    long now = 1_000_000_000_000L;
    cache.advertised(o, AltSvc.parse("h3=\":8443\""), 0, now);
    cache.broken(o, "QUIC failed: no handshake within 500 ms", now);
    assertThat(cache.choose(o, now + 1).endpoint()).isNull();
    cache.recovered(o); // the handshake completed after the budget
    assertThat(cache.choose(o, now + 2).endpoint()).isEqualTo(new AltSvcCache.Endpoint(null, 8443));

    // broken without an alternative (e.g. cleared meanwhile): recovering forgets the origin
    String p = "https://p.example:443";
    cache.broken(p, "QUIC failed", now);
    assertThat(cache.size()).isEqualTo(2);
    cache.recovered(p);
    assertThat(cache.size()).isEqualTo(1);
    assertThat(cache.choose(p, now).reason()).isEqualTo("no Alt-Svc");
    cache.recovered("https://unknown:443"); // nothing remembered: no-op
    assertThat(cache.size()).isEqualTo(1);
  }

  @Test
  void cacheIsBounded() {
    AltSvcCache cache = new AltSvcCache();
    long now = 5;
    for (int i = 0; i < AltSvcCache.MAX_ORIGINS + 50; i++) {
      cache.advertised("https://h" + i + ":443", AltSvc.parse("h3=\":443\""), 0, now);
      if (i == AltSvcCache.MAX_ORIGINS - 1) {
        cache.choose("https://h0:443", now); // used recently: kept
      }
    }
    assertThat(cache.size()).isEqualTo(AltSvcCache.MAX_ORIGINS);
    assertThat(cache.choose("https://h0:443", now).endpoint()).isNotNull();
    assertThat(cache.choose("https://h1:443", now).reason()).isEqualTo("no Alt-Svc");
    assertThat(cache.choose("https://h" + (AltSvcCache.MAX_ORIGINS + 49) + ":443", now).endpoint()).isNotNull();
  }
}
