package dev.loupe.engine.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(10)
class ParserTest {
  /** Fully parenthesised structure: and(...), or(...), not(...), atoms in normalised form. */
  private static String tree(String expression) {
    return tree(Filter.parse(expression));
  }

  private static String tree(Filter f) {
    if (f instanceof And a) {
      return a.operands().stream().map(ParserTest::tree).collect(Collectors.joining(", ", "and(", ")"));
    }
    if (f instanceof Or o) {
      return o.operands().stream().map(ParserTest::tree).collect(Collectors.joining(", ", "or(", ")"));
    }
    if (f instanceof Not n) {
      return "not(" + tree(n.operand()) + ")";
    }
    return f.toString();
  }

  @Test
  void blankInputIsAll() {
    assertThat(Filter.parse("")).isSameAs(Filter.ALL);
    assertThat(Filter.parse("  \t\n")).isSameAs(Filter.ALL);
    assertThat(Filter.ALL.toString()).isEqualTo("~all");
    assertThat(Filter.parse("~all")).isSameAs(Filter.ALL);
  }

  @Test
  void notBindsTighterThanAndWhichBindsTighterThanOr() {
    assertThat(tree("~q | ~s & ~e")).isEqualTo("or(~q, and(~s, ~e))");
    assertThat(tree("~q & ~s | ~e")).isEqualTo("or(and(~q, ~s), ~e)");
    assertThat(tree("!~q & ~s")).isEqualTo("and(not(~q), ~s)");
    assertThat(tree("!~q | !~s")).isEqualTo("or(not(~q), not(~s))");
    assertThat(tree("!!~q")).isEqualTo("not(not(~q))");
  }

  @Test
  void operatorsAreLeftAssociativeAndFlattened() {
    assertThat(tree("~q & ~s & ~e")).isEqualTo("and(~q, ~s, ~e)");
    assertThat(tree("~q | ~s | ~e")).isEqualTo("or(~q, ~s, ~e)");
    assertThat(tree("(~q & ~s) & ~e")).isEqualTo("and(~q, ~s, ~e)");
  }

  @Test
  void juxtapositionIsAndBindingLoosestAsInMitmproxy() {
    assertThat(tree("~q ~s")).isEqualTo("and(~q, ~s)");
    assertThat(tree("~d api ~m POST")).isEqualTo("and(~d api, ~m POST)");
    // mitmproxy reads "a | b c" as "(a | b) & c": juxtaposition binds looser than | and &.
    assertThat(tree("~q | ~s ~e")).isEqualTo("and(or(~q, ~s), ~e)");
    assertThat(tree("~q ~s | ~e")).isEqualTo("and(~q, or(~s, ~e))");
    assertThat(tree("!~q ~s")).isEqualTo("and(not(~q), ~s)");
  }

  @Test
  void parenthesesNestAndMayHoldJuxtaposition() {
    assertThat(tree("(~q | ~s) & ~e")).isEqualTo("and(or(~q, ~s), ~e)");
    assertThat(tree("!(~q | (~s & !(~e)))")).isEqualTo("not(or(~q, and(~s, not(~e))))");
    assertThat(tree("((((~q))))")).isEqualTo("~q");
    assertThat(tree("(~q ~s) | ~e")).isEqualTo("or(and(~q, ~s), ~e)");
    assertThat(tree("(~q)(~s)")).isEqualTo("and(~q, ~s)");
  }

  @Test
  void operatorsNeedNoSpaces() {
    assertThat(tree("~q&~s|!~e")).isEqualTo("or(and(~q, ~s), not(~e))");
    assertThat(tree("status>=400&~q")).isEqualTo("and(status>=400, ~q)");
  }

  @Test
  void aBareWordIsAUrlRegex() {
    assertThat(Filter.parse("example")).hasToString("~u example");
    assertThat(Filter.parse("\\.js$")).hasToString("~u \\.js$");
    assertThat(Filter.parse("'/a b'")).hasToString("~u \"/a b\"");
    assertThat(Filter.parse("id=7")).as("an unknown name with = reads as a URL regex").hasToString("~u id=7");
  }

  @Test
  void unquotedArgumentsRunToWhitespaceAsInMitmproxy() {
    assertThat(tree("~d google|facebook")).isEqualTo("~d google|facebook");
    assertThat(tree("~d (a|b)c ~q")).as("balanced parentheses stay in the word").isEqualTo("and(~d (a|b)c, ~q)");
    assertThat(tree("(~d api)")).isEqualTo("~d api");
    assertThat(tree("~u /~alice/")).isEqualTo("~u /~alice/");
  }

  @Test
  void anArgumentWithAnUnclosedParenthesisIsPrintedQuotedSoAGroupAroundItReadsBack() {
    // found by FilterFuzzTest: printed bare, "\\(x" took the group's ')' when read back (invalid regex)
    Filter f = Filter.parse("~e | ~u '\\(x'");
    assertThat(f).hasToString("~e | ~u \"\\(x\"");
    Filter grouped = Filter.parse("~q & (" + f + ")");
    assertThat(Filter.parse(grouped.toString())).hasToString(grouped.toString());
    assertThat(Filter.parse("~d (a|b)c")).as("balanced: still bare").hasToString("~d (a|b)c");
  }

  @Test
  void quotedStringsKeepRegexEscapesAndUnescapeQuotes() {
    assertThat(Filter.parse("~b \"a \\\"b\\\" \\d\"")).hasToString("~b \"a \\\"b\\\" \\d\"");
    assertThat(Filter.parse("~b 'it\\'s'")).hasToString("~b it's");
    assertThat(Filter.parse("~h \"x-a: \\\\\\\\\"")).as("\\\\ is one backslash")
        .hasToString("~h \"x-a: \\\\\\\\\"");
    assertThat(Filter.parse("~u \"\"")).hasToString("~u \"\"");
  }

  @Test
  void comparisonsParseWithEveryOperator() {
    assertThat(tree("status=404 status!=200 status<500 status<=499 status>399 status>=400"))
        .isEqualTo("and(status=404, status!=200, status<500, status<=499, status>399, status>=400)");
    assertThat(tree("STATUS>=400")).as("field names ignore case").isEqualTo("status>=400");
    assertThat(tree("size>1.5MB reqsize<=10KiB duration>500ms port=8443"))
        .isEqualTo("and(size>1.5MB, reqsize<=10KiB, duration>500ms, port=8443)");
    assertThat(tree("proto=h2 proto.client!=h1 proto.server=HTTP/1.1 tier=full method=POST host=a.example"))
        .isEqualTo("and(proto=h2, proto.client!=h1, proto.server=HTTP/1.1, tier=full, method=POST, host=a.example)");
    assertThat(tree("method=\"M SEARCH\"")).isEqualTo("method=\"M SEARCH\"");
  }

  @Test
  void shorthandsNormalise() {
    assertThat(Filter.parse("~c 404")).hasToString("status=404");
    assertThat(Filter.parse("host*=^api\\.")).hasToString("~d ^api\\.");
  }

  @Test
  void toStringIsNormalisedAndReparsesToTheSameForm() {
    String[] inputs = {
        "~q | ~s ~e", "!(~q|~s)", "  ~d   api   &  ~m  POST ", "a b | c", "!(!~q)", "~h 'x y'|~b \"(x)\"",
        "(~q | ~s) & (~e | ~a)", "size>1MB | !(status>=400 & duration>2s)",
    };
    for (String input : inputs) {
      Filter f = Filter.parse(input);
      assertThat(Filter.parse(f.toString())).as(input).hasToString(f.toString()).isEqualTo(f);
    }
    assertThat(Filter.parse("~q | ~s ~e")).hasToString("(~q | ~s) & ~e");
    assertThat(Filter.parse("  ~d   api   &  ~m  POST ")).hasToString("~d api & ~m POST");
    assertThat(Filter.parse("!(~q|~s)")).hasToString("!(~q | ~s)");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = ';', quoteCharacter = '`', textBlock = """
      # expression ; reason ; position ; length
      `(~q` ; expected ')' ; 3 ; 0
      `(~q ~s (~e) ` ; expected ')' ; 12 ; 0
      `~q)` ; unexpected ')' ; 2 ; 1
      `)` ; unexpected ')' ; 0 ; 1
      `()` ; expected an expression after '(' ; 1 ; 1
      `~x` ; unknown operator ~x ; 0 ; 2
      `~q & ~Q` ; unknown operator ~Q ; 5 ; 2
      `~dapi` ; unknown operator ~dapi ; 0 ; 5
      `~` ; expected an operator name after '~' ; 0 ; 1
      `~d` ; expected a regex after ~d ; 2 ; 0
      `~d & ~q` ; expected a regex after ~d ; 3 ; 1
      `~b ~q` ; expected a regex after ~b ; 3 ; 1
      `~c` ; expected a status code after ~c ; 2 ; 0
      `~c abc` ; expected a whole number, got 'abc' ; 3 ; 3
      `~q &` ; expected an expression after '&' ; 4 ; 0
      `~q |` ; expected an expression after '|' ; 4 ; 0
      `~q | | ~s` ; expected an expression after '|' ; 5 ; 1
      `& ~q` ; expected an expression before '&' ; 0 ; 1
      `!` ; expected an expression after '!' ; 1 ; 0
      `!)` ; expected an expression after '!' ; 1 ; 1
      `~u 'abc` ; unterminated string ; 3 ; 4
      `"a\\"` ; unterminated string ; 0 ; 4
      `~d (api` ; invalid regex: Unclosed group ; 3 ; 4
      `~b "[a-"` ; invalid regex: Illegal character range ; 3 ; 5
      `host*=a(` ; invalid regex: Unclosed group ; 6 ; 2
      `size>1mb2` ; unknown unit 'mb2' ; 6 ; 3
      `duration>5h` ; unknown unit 'h' ; 10 ; 1
      `size>MB` ; expected a size, got 'MB' ; 5 ; 2
      `size>1.` ; expected digits after '.' ; 6 ; 1
      `duration>` ; expected a value after duration> ; 9 ; 0
      `status>=4xx` ; expected a whole number, got '4xx' ; 8 ; 3
      `port=99999999999999999999` ; number too large: 99999999999999999999 ; 5 ; 20
      `stauts>=400` ; unknown field 'stauts' (fields: status, size, reqsize, duration, port, method, host, proto, proto.client, proto.server, tier) ; 0 ; 6
      `method>GET` ; operator > does not apply to method ; 6 ; 1
      `proto<=h2` ; operator <= does not apply to proto ; 5 ; 2
      `status*=4` ; operator *= does not apply to status ; 6 ; 2
      `proto=h4` ; unknown protocol 'h4' (expected h1, h2, h3, http/1.0 or http/1.1) ; 6 ; 2
      `tier=fast` ; unknown tier 'fast' (expected relay, full or tunnel) ; 5 ; 4
      `host=""` ; expected a host ; 5 ; 2
      """)
  void errorsNameTheOffendingToken(String expression, String reason, int position, int length) {
    assertThatThrownBy(() -> Filter.parse(expression))
        .isInstanceOfSatisfying(FilterSyntaxException.class, e -> {
          assertThat(e.reason()).isEqualTo(reason);
          assertThat(e.position()).as("position").isEqualTo(position);
          assertThat(e.length()).as("length").isEqualTo(length);
          assertThat(e.getMessage()).isEqualTo(reason + " at " + position);
        });
  }

  @Test
  void nullIsRejected() {
    assertThatThrownBy(() -> Filter.parse(null)).isInstanceOf(NullPointerException.class);
  }
}
