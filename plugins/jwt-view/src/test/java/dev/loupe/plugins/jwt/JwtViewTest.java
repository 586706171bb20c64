package dev.loupe.plugins.jwt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.flow.Headers;
import dev.loupe.spi.ContentView;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The JWT content view on tokens made here (HS256 with a known key) and on look-alikes. */
@Timeout(30)
class JwtViewTest {
  /** The example token of RFC 7519 §3.1's style, as jwt.io shows it (HS256, key "your-256-bit-secret"). */
  static final String JWT_IO = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
      + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
      + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

  final JwtView view = new JwtView();

  static String b64(String json) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }

  static String hs256(String header, String payload, String key) throws Exception {
    String signingInput = b64(header) + "." + b64(payload);
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    byte[] sig = mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII));
    return signingInput + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(sig);
  }

  /** Every label of the tree, depth first, indented by depth. */
  static List<String> labels(ContentView.View v) {
    List<String> out = new ArrayList<>();
    walk(((ContentView.Tree) v).root(), 0, out);
    return out;
  }

  private static void walk(ContentView.Node n, int depth, List<String> out) {
    out.add("  ".repeat(depth) + n.label());
    n.children().forEach(c -> walk(c, depth + 1, out));
  }

  @Test
  void isFoundByServiceLoader() {
    assertThat(ServiceLoader.load(ContentView.class).stream().map(ServiceLoader.Provider::type))
        .contains(JwtView.class);
  }

  @Test
  void decodesTheBearerTokenOfTheAuthorizationHeader() {
    Headers h = Headers.of("Authorization", "Bearer " + JWT_IO);
    assertThat(view.accepts(h, new byte[0])).isTrue();
    assertThat(labels(view.render(h, new byte[0]))).containsExactly(
        "1 JSON Web Token (signatures not verified)",
        "  Authorization header: HS256 sub=\"1234567890\" — eyJhbGciOiJI…JV_adQssw5c".replace("JV_adQssw5c",
            JWT_IO.substring(JWT_IO.length() - 8)),
        "    header",
        "      alg: \"HS256\"",
        "      typ: \"JWT\"",
        "    payload (claims)",
        "      sub: \"1234567890\"",
        "      name: \"John Doe\"",
        "      iat: 1516239022 (2018-01-18T01:30:22Z)",
        "    signature: 32 bytes, HS256, not verified");
  }

  @Test
  void findsTokensInABodyWithNestedClaimsAndTimes() throws Exception {
    long past = 1_600_000_000L;
    long future = 4_000_000_000L;
    String token = hs256("{\"alg\":\"HS256\",\"kid\":\"k1\"}",
        "{\"sub\":\"u-1\",\"exp\":" + past + ",\"nbf\":" + future + ",\"roles\":[\"admin\",\"ops\"],"
            + "\"ctx\":{\"tenant\":\"t\\u00e9\",\"n\":1.5e3,\"ok\":true,\"none\":null}}", "secret");
    String body = "{\"access_token\":\"" + token + "\",\"refresh_token\":\"" + JWT_IO + "\"}";
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    assertThat(view.accepts(Headers.of("Content-Type", "application/json"), bytes)).isTrue();
    List<String> l = labels(view.render(Headers.EMPTY, bytes));
    assertThat(l.get(0)).isEqualTo("2 JSON Web Tokens (signatures not verified)");
    assertThat(l.get(1)).startsWith("  body, at byte 17: HS256 sub=\"u-1\" — ");
    assertThat(l).contains(
        "      kid: \"k1\"",
        "      exp: 1600000000 (2020-09-13T12:26:40Z, expired)",
        "      nbf: 4000000000 (2096-10-02T07:06:40Z, not yet valid)",
        "      roles [2]",
        "        [0]: \"admin\"",
        "      ctx {4}",
        "        tenant: \"té\"",
        "        n: 1500",
        "        ok: true",
        "        none: null");
    assertThat(l).anyMatch(s -> s.startsWith("  body, at byte " + body.indexOf(JWT_IO) + ": HS256"));
  }

  @Test
  void unsecuredTokensAndFormBodies() {
    String none = b64("{\"alg\":\"none\"}") + "." + b64("{\"sub\":\"x\"}") + ".";
    byte[] form = ("id_token=" + none + "&state=abc").getBytes(StandardCharsets.US_ASCII);
    List<String> l = labels(view.render(Headers.EMPTY, form));
    assertThat(l).contains("    signature: none (alg \"none\": an unsecured token)");
    assertThat(l.get(1)).startsWith("  body, at byte 9: none sub=\"x\"");
  }

  @Test
  void leavesLookAlikesAlone() {
    String jwe = "eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.OKOawDo13gRp2ojaHV7LFpZcgV7T6DVZKTyKOMTYUmKoTCVJ"
        + ".48V1_ALb6US04U3b.5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6ji.XFBoMYUZodetZdvTiFvSkQ";
    String notJson = b64("{not json") + "." + b64("{}") + ".c2ln";
    String noAlg = b64("{\"typ\":\"JWT\"}") + "." + b64("{}") + ".c2ln";
    for (String s : List.of(jwe, notJson, noAlg, "eyJ", "Basic dXNlcjpwYXNz", "x" + JWT_IO)) {
      assertThat(view.accepts(Headers.of("Authorization", "Bearer " + s), s.getBytes(StandardCharsets.UTF_8)))
          .as(s).isFalse();
    }
    assertThat(labels(view.render(Headers.EMPTY, new byte[0]))).containsExactly("No JSON Web Token in this message");
  }

  @Test
  void decodeSaysWhyATokenIsNotAJwt() {
    assertThatThrownBy(() -> Jwt.decode("a.b.c.d.e")).hasMessageContaining("encrypted token (JWE)");
    assertThatThrownBy(() -> Jwt.decode(b64("[1]") + ".e30.")).hasMessageContaining("with \"alg\"");
    assertThatThrownBy(() -> Jwt.decode("eyJ!.e30.")).hasMessageContaining("not base64url");
  }

  @Test
  void payloadThatIsNotJsonIsShownAsBytes() {
    String t = b64("{\"alg\":\"HS256\"}") + "." + b64("hello\u0001") + ".AAAA";
    List<String> l = labels(view.render(Headers.of("Proxy-Authorization", "Bearer " + t), null));
    assertThat(l).contains("    payload: 6 bytes, not a JSON object: hello\uFFFD");
    assertThat(l.get(1)).startsWith("  Proxy-Authorization header: HS256 — ");
  }

  @Test
  void miniJsonIsStrict() throws Exception {
    assertThat(MiniJson.parse(" {\"a\" : [1, -2.5e-1, \"\\\"q\\\"\\n\"], \"b\": {}} ")).isEqualTo(
        Map.of("a", List.of(new BigDecimal("1"), new BigDecimal("-2.5e-1"), "\"q\"\n"), "b", Map.of()));
    for (String bad : List.of("", "{", "[1,]", "{\"a\"}", "01", "1.", "\"a", "tru", "{} x", "\"\u0001\"", "\"\\x\"")) {
      assertThatThrownBy(() -> MiniJson.parse(bad)).as(bad).isInstanceOf(MiniJson.SyntaxException.class);
    }
    String deep = "[".repeat(MiniJson.MAX_DEPTH + 2) + "]".repeat(MiniJson.MAX_DEPTH + 2);
    assertThatThrownBy(() -> MiniJson.parse(deep)).hasMessageContaining("nested deeper");
  }
}
