package dev.loupe.engine.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowTier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Typed comparisons: every field and operator, units, and the absent-value rule. */
@Timeout(10)
class ComparisonMatchTest {
  private static boolean matches(String filter, Flow flow) {
    return Filter.parse(filter).test(flow);
  }

  private static Flow withStatus(int status) {
    return FlowBuilder.get().response(status).complete();
  }

  @Test
  void statusWithEveryOperator() {
    Flow notFound = withStatus(404);
    assertThat(matches("status=404", notFound)).isTrue();
    assertThat(matches("status=200", notFound)).isFalse();
    assertThat(matches("status!=200", notFound)).isTrue();
    assertThat(matches("status!=404", notFound)).isFalse();
    assertThat(matches("status<404", notFound)).isFalse();
    assertThat(matches("status<405", notFound)).isTrue();
    assertThat(matches("status<=404", notFound)).isTrue();
    assertThat(matches("status<=403", notFound)).isFalse();
    assertThat(matches("status>403", notFound)).isTrue();
    assertThat(matches("status>404", notFound)).isFalse();
    assertThat(matches("status>=404", notFound)).isTrue();
    assertThat(matches("status>=405", notFound)).isFalse();
  }

  @Test
  void absentValuesCompareFalseWhateverTheOperatorAndNotFlipsThat() {
    Flow pending = FlowBuilder.get().build();
    for (String op : new String[] {"=", "!=", "<", "<=", ">", ">="}) {
      assertThat(matches("status" + op + "400", pending)).as("status" + op).isFalse();
      assertThat(matches("size" + op + "0", pending)).as("size" + op).isFalse();
      assertThat(matches("duration" + op + "0", pending)).as("duration" + op).isFalse();
    }
    assertThat(matches("!status>=400", pending)).isTrue();
    assertThat(matches("!status<400", pending)).isTrue();
    Flow nothing = FlowBuilder.empty().build();
    assertThat(matches("method=GET", nothing)).isFalse();
    assertThat(matches("method!=GET", nothing)).isFalse();
    assertThat(matches("host!=a.example", nothing)).isFalse();
    assertThat(matches("port!=443", nothing)).isFalse();
    assertThat(matches("reqsize>=0", nothing)).isFalse();
    assertThat(matches("proto!=h2", nothing)).isFalse();
  }

  @Test
  void sizesUseBinaryUnits() {
    Flow mebibyte = FlowBuilder.get().response(200).responseBody(new byte[1 << 20]).complete();
    assertThat(matches("size=1048576", mebibyte)).isTrue();
    assertThat(matches("size=1048576B", mebibyte)).isTrue();
    assertThat(matches("size=1MB", mebibyte)).isTrue();
    assertThat(matches("size=1MiB", mebibyte)).isTrue();
    assertThat(matches("size=1m", mebibyte)).isTrue();
    assertThat(matches("size=1024KB", mebibyte)).isTrue();
    assertThat(matches("size=1024kib", mebibyte)).isTrue();
    assertThat(matches("size>0.99MB", mebibyte)).isTrue();
    assertThat(matches("size>1MB", mebibyte)).isFalse();
    assertThat(matches("size<1.5MB", mebibyte)).isTrue();
    assertThat(matches("size<0.001GB", mebibyte)).isTrue();
    assertThat(matches("size>=0.0009GiB", mebibyte)).isTrue();
    assertThat(matches("size>1MB", FlowBuilder.get().response(200).responseBody(new byte[(1 << 20) + 1]).build()))
        .isTrue();
  }

  @Test
  void requestSizeIsTheRequestBody() {
    Flow upload = FlowBuilder.get().requestBody(new byte[2048]).response(200).responseBody("ok").complete();
    assertThat(matches("reqsize=2KB", upload)).isTrue();
    assertThat(matches("reqsize>2KB", upload)).isFalse();
    assertThat(matches("size=2", upload)).isTrue();
    assertThat(matches("reqsize=0", FlowBuilder.get().build())).as("a request without a body").isTrue();
    assertThat(matches("size=0", FlowBuilder.get().response(204).build())).isTrue();
  }

  @Test
  void durationsWithUnits() {
    Flow slow = FlowBuilder.get().response(200).tookMillis(750).complete();
    assertThat(matches("duration>500ms", slow)).isTrue();
    assertThat(matches("duration>500", slow)).as("milliseconds by default").isTrue();
    assertThat(matches("duration>=750ms", slow)).isTrue();
    assertThat(matches("duration>750000us", slow)).isFalse();
    assertThat(matches("duration>749999us", slow)).isTrue();
    assertThat(matches("duration<1s", slow)).isTrue();
    assertThat(matches("duration>0.7s", slow)).isTrue();
    assertThat(matches("duration<0.5s", slow)).isFalse();
    assertThat(matches("duration<0.1m", slow)).isTrue();
    assertThat(matches("duration>1m", FlowBuilder.get().response(200).tookMillis(61_000).build())).isTrue();
    assertThat(matches("duration>0", FlowBuilder.get().response(200).build()))
        .as("absent until the response has ended").isFalse();
  }

  @Test
  void protocolsOnEitherOrOneSide() {
    Flow h2ToH1 = FlowBuilder.get().protocols("HTTP/2", "HTTP/1.1").response(200).build();
    assertThat(matches("proto=h2", h2ToH1)).isTrue();
    assertThat(matches("proto=h1", h2ToH1)).isTrue();
    assertThat(matches("proto=HTTP/1.1", h2ToH1)).isTrue();
    assertThat(matches("proto=http/1.0", h2ToH1)).isFalse();
    assertThat(matches("proto=h3", h2ToH1)).isFalse();
    assertThat(matches("proto!=h3", h2ToH1)).isTrue();
    assertThat(matches("proto!=h2", h2ToH1)).as("neither side may speak it").isFalse();
    assertThat(matches("proto.client=h2", h2ToH1)).isTrue();
    assertThat(matches("proto.client=HTTP/2", h2ToH1)).isTrue();
    assertThat(matches("proto.client=h1", h2ToH1)).isFalse();
    assertThat(matches("proto.server=h1", h2ToH1)).isTrue();
    assertThat(matches("proto.server!=h2", h2ToH1)).isTrue();
    assertThat(matches("proto.server=h2", h2ToH1)).isFalse();

    Flow h3 = FlowBuilder.get().protocols("HTTP/1.0", "HTTP/3").build();
    assertThat(matches("proto=h3", h3)).isTrue();
    assertThat(matches("proto=http/3", h3)).isTrue();
    assertThat(matches("proto.client=http/1.0", h3)).isTrue();
    assertThat(matches("proto.client=http/1.1", h3)).isFalse();

    Flow noUpstream = FlowBuilder.get().protocols("HTTP/1.1", null).build();
    assertThat(matches("proto.server=h1", noUpstream)).isFalse();
    assertThat(matches("proto.server!=h1", noUpstream)).as("absent").isFalse();
    assertThat(matches("proto!=h2", noUpstream)).isTrue();
  }

  @Test
  void protocolSpellingsOfTheFlowModel() {
    for (String spelling : new String[] {"HTTP/2", "HTTP/2.0", "h2", "h2c"}) {
      assertThat(Protocol.H2.covers(spelling)).as(spelling).isTrue();
    }
    for (String spelling : new String[] {"HTTP/20", "HTTP/2.1", "HTTP/1.1", "h3"}) {
      assertThat(Protocol.H2.covers(spelling)).as(spelling).isFalse();
    }
  }

  @Test
  void methodHostPortAndTier() {
    Flow flow = FlowBuilder.empty().request("PATCH", "https", "Api.Example.com", 8443, "/").build();
    assertThat(matches("method=PATCH", flow)).isTrue();
    assertThat(matches("method=patch", flow)).isTrue();
    assertThat(matches("method!=PATCH", flow)).isFalse();
    assertThat(matches("method=PAT", flow)).as("exact, not a regex").isFalse();
    assertThat(matches("host=api.example.com", flow)).isTrue();
    assertThat(matches("host=example.com", flow)).as("exact").isFalse();
    assertThat(matches("host!=example.com", flow)).isTrue();
    assertThat(matches("host*=example\\.com$", flow)).isTrue();
    assertThat(matches("host*=^example", flow)).isFalse();
    assertThat(matches("port=8443", flow)).isTrue();
    assertThat(matches("port>1024", flow)).isTrue();
    assertThat(matches("port=443", flow)).isFalse();
    assertThat(matches("tier=relay", flow)).isTrue();
    assertThat(matches("tier!=relay", flow)).isFalse();
    assertThat(matches("tier=FULL", FlowBuilder.get().tier(FlowTier.FULL).build())).isTrue();
    assertThat(matches("tier=tunnel", FlowBuilder.get().tier(FlowTier.TUNNEL).build())).isTrue();
    assertThat(matches("tier=tunnel", flow)).isFalse();
  }
}
