package dev.loupe.engine.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.WebSocketMessage;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Random expressions: the parser honours precedence (checked against a reference built from the
 * same random tree), and {@code parse(f.toString())} prints and behaves as {@code f}.
 */
@Timeout(60)
class RoundTripPropertyTest {
  private static final String[] ATOMS = {
      "~q", "~s", "~e", "~a", "~websocket", "~all", "~d api", "~d 'exa mple'", "~u /v1/", "example", "'\\.js$'",
      "~m POST", "~m get", "~c 200", "~c 404", "~h 'content-type: .*json'", "~hq accept", "~hs set-cookie",
      "~b secret", "~bq item", "~bs 'id\":'", "~t json", "~tq form", "~ts image", "status>=400", "status!=200",
      "size>1KB", "size<=100", "reqsize>0", "duration>500ms", "duration<1s", "proto=h2", "proto.client=h1",
      "proto.server!=h2", "method=GET", "host=api.example.com", "host*=cdn", "tier=relay", "tier!=full",
      "port=443", "port>1024", "~d (a|b)pi", "\"quote\\\"d\"",
  };

  private static final List<Flow> FLOWS = List.of(
      FlowBuilder.get().build(),
      FlowBuilder.get().response(200, "Content-Type", "application/json", "Set-Cookie", "a=b")
          .responseBody("{\"id\":1,\"secret\":true}").tookMillis(40).complete(),
      FlowBuilder.get().response(404, "Content-Type", "text/html").responseBody(new byte[5000]).tookMillis(900)
          .complete(),
      FlowBuilder.empty().request("POST", "https", "exa mple.test", 443, "/form", "Content-Type", "application/x-www-form-urlencoded")
          .requestBody("item=1").protocols("HTTP/2", "HTTP/2").response(500).tookMillis(2000).complete(),
      FlowBuilder.empty().request("GET", "http", "cdn.example.net", 8080, "/app.js?quote\"d").tier(FlowTier.FULL)
          .response(200, "Content-Type", "image/png").responseBody(new byte[100]).complete(),
      FlowBuilder.empty().request("GET", "https", "bpi.example", 443, "/v1/ws").response(101)
          .webSocketMessage(WebSocketMessage.Direction.SERVER_TO_CLIENT, "{\"id\":7}").build(),
      FlowBuilder.get().failed(FlowError.Kind.CONNECT_REFUSED).build(),
      FlowBuilder.empty().build());

  /** A random expression and what it should mean. */
  private record Expr(String text, int level, Predicate<Flow> meaning) {}

  private static final int JUXTAPOSED = 0;
  private static final int OR = 1;
  private static final int AND = 2;
  private static final int UNARY = 3;

  private static Expr random(Random rnd, int depth) {
    int kind = depth == 0 ? 0 : rnd.nextInt(5);
    switch (kind) {
      case 1:
        return binary(rnd, depth, " & ", AND, Predicate::and);
      case 2:
        return binary(rnd, depth, " | ", OR, Predicate::or);
      case 3:
        return binary(rnd, depth, " ", JUXTAPOSED, Predicate::and);
      case 4: {
        Expr e = random(rnd, depth - 1);
        return new Expr("!" + operand(rnd, e, UNARY), UNARY, e.meaning.negate());
      }
      default: {
        String atom = ATOMS[rnd.nextInt(ATOMS.length)];
        return new Expr(atom, UNARY, Filter.parse(atom)::test);
      }
    }
  }

  private interface Combiner {
    Predicate<Flow> combine(Predicate<Flow> a, Predicate<Flow> b);
  }

  private static Expr binary(Random rnd, int depth, String op, int level, Combiner combiner) {
    Expr a = random(rnd, depth - 1);
    Expr b = random(rnd, depth - 1);
    String left = operand(rnd, a, level);
    // An unquoted regex runs to the next space ("~d a|b" is one regex), so only a closed operand may touch "&" or "|".
    boolean closed = left.endsWith(")") || left.endsWith("'") || left.endsWith("\"");
    String sep = op.isBlank() ? " \t " : closed && rnd.nextBoolean() ? op.strip() : op;
    return new Expr(left + sep + operand(rnd, b, level), level, combiner.combine(a.meaning, b.meaning));
  }

  /** Parenthesised when it binds looser than its parent (and sometimes for no reason). */
  private static String operand(Random rnd, Expr e, int parentLevel) {
    boolean needed = e.level < parentLevel;
    return needed || rnd.nextInt(5) == 0 ? "(" + e.text + ")" : e.text;
  }

  @Test
  void parsingHonoursPrecedenceAndTheNormalisedFormRoundTrips() {
    Random rnd = new Random(20261201);
    for (int i = 0; i < 3000; i++) {
      Expr e = random(rnd, 1 + rnd.nextInt(5));
      Filter f = Filter.parse(e.text);
      Filter again = Filter.parse(f.toString());
      assertThat(again.toString()).as(e.text).isEqualTo(f.toString());
      for (Flow flow : FLOWS) {
        boolean expected = e.meaning.test(flow);
        assertThat(f.test(flow)).as("%s on %s", e.text, flow).isEqualTo(expected);
        assertThat(again.test(flow)).as("%s on %s", f, flow).isEqualTo(expected);
      }
    }
  }

  @Test
  void anyRegexSurvivesQuoting() {
    Random rnd = new Random(7);
    String alphabet = "ab \"'\\()&|!~~E\tQ.*";
    for (int i = 0; i < 2000; i++) {
      StringBuilder literal = new StringBuilder();
      for (int n = rnd.nextInt(12); n > 0; n--) {
        literal.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
      }
      Filter f = Filter.parse("~u " + quoteLikeAUser(Pattern.quote(literal.toString())));
      Filter again = Filter.parse(f.toString());
      assertThat(again).as(f.toString()).isEqualTo(f);
      Flow flow = FlowBuilder.empty().request("GET", "https", "a.example", 443, "/" + literal).build();
      assertThat(f.test(flow)).as(f.toString()).isTrue();
      assertThat(again.test(flow)).as(f.toString()).isTrue();
    }
  }

  /** Single quotes, every backslash doubled and the quote escaped, as docs/FILTERS.md allows. */
  private static String quoteLikeAUser(String regex) {
    return "'" + regex.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}
