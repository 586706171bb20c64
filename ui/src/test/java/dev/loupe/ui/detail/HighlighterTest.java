package dev.loupe.ui.detail;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The lexers' spans: the right styles on the right text, and always well formed. */
class HighlighterTest {
  /** "style:text" for each span. */
  static List<String> tokens(Language lang, String text) {
    return Highlighter.spans(lang, text).stream()
        .map(s -> s.style().substring(3) + ":" + text.substring(s.start(), s.end()))
        .collect(Collectors.toList());
  }

  @Test
  void json() {
    assertThat(tokens(Language.JSON, "{\"k\\\"ey\" : [1.5e-3, \"v\", true, null]}")).containsExactly(
        "punct:{", "key:\"k\\\"ey\"", "punct::", "punct:[", "number:1.5e-3", "punct:,", "string:\"v\"", "punct:,",
        "literal:true", "punct:,", "literal:null", "punct:]", "punct:}");
  }

  @Test
  void xml() {
    assertThat(tokens(Language.XML, "<?xml version=\"1.0\"?><!-- c --><a x='1' y=2 z>t&amp;<b/></a><![CDATA[<x>]]>"))
        .containsExactly("keyword:<?xml version=\"1.0\"?>", "comment:<!-- c -->", "tag:<a", "attr:x", "string:'1'",
            "attr:y", "string:2", "attr:z", "tag:>", "entity:&amp;", "tag:<b", "tag:/>", "tag:</a", "tag:>",
            "string:<![CDATA[<x>]]>");
  }

  @Test
  void htmlLexesScriptAndStyleContents() {
    String html = "<script>var s = \"</p>\"; // hi\n</script><style>p { color: #fff }</style><p class=x>";
    assertThat(tokens(Language.HTML, html)).containsExactly(
        "tag:<script", "tag:>", "keyword:var", "string:\"</p>\"", "comment:// hi", "tag:</script", "tag:>",
        "tag:<style", "tag:>", "selector:p", "property:color", "number:#fff", "tag:</style", "tag:>",
        "tag:<p", "attr:class", "string:x", "tag:>");
  }

  @Test
  void javascript() {
    String js = "const re = /a\\/b[/]/g; let x = a / b / 2; `t${1}` /* c */ if (ok) return null";
    assertThat(tokens(Language.JAVASCRIPT, js)).containsExactly(
        "keyword:const", "string:/a\\/b[/]/g", "keyword:let", "number:2", "string:`t${1}`", "comment:/* c */",
        "keyword:if", "keyword:return", "literal:null");
  }

  @Test
  void css() {
    String css = "@media (max-width: 600px) { .a > b, #c:hover { margin: 0 -2px !important; content: 'x;' } }";
    assertThat(tokens(Language.CSS, css)).containsExactly(
        "at-rule:@media", "selector:.a", "selector:>", "selector:b",
        "selector:#c:hover", "property:margin", "number:0", "number:-2px", "keyword:!important",
        "property:content", "string:'x;'");
  }

  @Test
  void plainHasNoSpans() {
    assertThat(Highlighter.spans(Language.PLAIN, "anything {\"a\":1}")).isEmpty();
  }

  /** Cut, garbled and random input never breaks a lexer: spans are ordered, disjoint and in range. */
  @ParameterizedTest
  @EnumSource(Language.class)
  void spansAreWellFormedOnAnyInput(Language lang) {
    String sample = "<html><script>if (a < b) { x = /re/.test('s') }</script><style>a{b:c}</style>"
        + "{\"a\": [1, \"b\\\"\", {\"c\": null}]} /* x */ @import 'y'; <!-- z --> &amp; <![CDATA[q]]>";
    Random random = new Random(11);
    for (int cut = 0; cut <= sample.length(); cut++) {
      check(Highlighter.spans(lang, sample.substring(0, cut)), cut);
      check(Highlighter.spans(lang, sample.substring(cut)), sample.length() - cut);
    }
    String alphabet = "<>/\"'`{}[]:;,=!-#@&*\\\n abc123";
    for (int i = 0; i < 300; i++) {
      StringBuilder sb = new StringBuilder();
      for (int k = random.nextInt(80); k > 0; k--) {
        sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      check(Highlighter.spans(lang, sb.toString()), sb.length());
    }
  }

  private static void check(List<Span> spans, int length) {
    int at = 0;
    for (Span s : spans) {
      assertThat(s.start()).isGreaterThanOrEqualTo(at);
      assertThat(s.end()).isGreaterThan(s.start()).isLessThanOrEqualTo(length);
      at = s.end();
    }
  }

  @Test
  void longInputIsLinear() {
    String big = "{\"k\": \"v\", \"n\": 12}, ".repeat(50_000); // 1 MB
    long t = System.nanoTime();
    for (Language l : Language.values()) {
      Highlighter.spans(l, big);
    }
    assertThat(System.nanoTime() - t).isLessThan(5_000_000_000L);
  }
}
