package dev.loupe.ui.detail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.ui.detail.FormUrlEncoded.Param;
import dev.loupe.ui.body.JsonDocument.JsonTreeNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import dev.loupe.ui.body.ContentType;
import dev.loupe.ui.body.JsonDocument;

/** Content types, viewer choice, JSON, forms and hex. */
class ParsingTest {
  @Test
  void contentTypeParametersAreUnquotedAndCaseFolded() {
    ContentType t = ContentType.parse("Multipart/Form-Data; Boundary=\"a;b=\\\"c\\\"\"; charset=UTF-8");
    assertThat(t.mediaType()).isEqualTo("multipart/form-data");
    assertThat(t.type()).isEqualTo("multipart");
    assertThat(t.boundary()).isEqualTo("a;b=\"c\"");
    assertThat(t.charset()).isEqualTo(StandardCharsets.UTF_8);
    assertThat(ContentType.parse("text/plain; charset=nonsense-9").charset()).isEqualTo(StandardCharsets.UTF_8);
    assertThat(ContentType.parse("text/plain;charset=iso-8859-1").charset()).isEqualTo(StandardCharsets.ISO_8859_1);
    assertThat(ContentType.parse(null).isEmpty()).isTrue();
    assertThat(ContentType.parse("text/html;;novalue;x=1").parameters()).containsOnlyKeys("x");
  }

  @Test
  void viewerByContentType() {
    byte[] none = new byte[0];
    assertThat(choice("application/json; charset=utf-8", none)).isEqualTo(new ViewerChoice(ViewerMode.JSON, Language.JSON));
    assertThat(choice("application/problem+json", none).mode()).isEqualTo(ViewerMode.JSON);
    assertThat(choice("application/x-ndjson", none)).isEqualTo(new ViewerChoice(ViewerMode.TEXT, Language.JSON));
    assertThat(choice("image/png", none).mode()).isEqualTo(ViewerMode.IMAGE);
    assertThat(choice("image/svg+xml", none)).isEqualTo(new ViewerChoice(ViewerMode.TEXT, Language.XML));
    assertThat(choice("application/x-www-form-urlencoded", none).mode()).isEqualTo(ViewerMode.FORM);
    assertThat(choice("multipart/form-data; boundary=x", none).mode()).isEqualTo(ViewerMode.MULTIPART);
    assertThat(choice("text/html", none).language()).isEqualTo(Language.HTML);
    assertThat(choice("application/atom+xml", none).language()).isEqualTo(Language.XML);
    assertThat(choice("text/javascript", none).language()).isEqualTo(Language.JAVASCRIPT);
    assertThat(choice("text/css", none).language()).isEqualTo(Language.CSS);
    assertThat(choice("text/plain", none)).isEqualTo(new ViewerChoice(ViewerMode.TEXT, Language.PLAIN));
  }

  @Test
  void viewerBySniffingWhenTheTypeSaysNothing() {
    byte[] png = {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0};
    assertThat(choice("application/octet-stream", png).mode()).isEqualTo(ViewerMode.IMAGE);
    assertThat(choice(null, new byte[] {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, 0}).mode()).isEqualTo(ViewerMode.IMAGE);
    assertThat(choice(null, "  {\"a\":1}".getBytes(StandardCharsets.UTF_8)).mode()).isEqualTo(ViewerMode.JSON);
    assertThat(choice(null, "<!DOCTYPE html><p>".getBytes(StandardCharsets.UTF_8)).language()).isEqualTo(Language.HTML);
    assertThat(choice(null, "<?xml version='1.0'?>".getBytes(StandardCharsets.UTF_8)).language()).isEqualTo(Language.XML);
    assertThat(choice(null, "héllo wörld".getBytes(StandardCharsets.UTF_8)).mode()).isEqualTo(ViewerMode.TEXT);
    assertThat(choice(null, new byte[] {1, 2, 3, 0, (byte) 0xFE}).mode()).isEqualTo(ViewerMode.HEX);
    // Latin-1 bytes are not UTF-8: hex, not mojibake
    assertThat(choice(null, "caf\u00e9 ol\u00e9".getBytes(StandardCharsets.ISO_8859_1)).mode()).isEqualTo(ViewerMode.HEX);
    // A UTF-8 sequence cut by the end of the capture still reads as text
    byte[] cut = "snow ☃".getBytes(StandardCharsets.UTF_8);
    assertThat(ViewerChoice.looksLikeText(java.util.Arrays.copyOf(cut, cut.length - 1))).isTrue();
  }

  private static ViewerChoice choice(String type, byte[] sample) {
    return ViewerChoice.of(ContentType.parse(type), sample);
  }

  @Test
  void jsonPrettyKeepsOrderAndPrecision() throws Exception {
    JsonDocument doc = JsonDocument.parse(
        "{\"b\":[1,2.50,12345678901234567890],\"a\":{\"x\":null,\"y\":true},\"s\":\"\\u00e9\\n\"}"
            .getBytes(StandardCharsets.UTF_8));
    assertThat(doc.pretty()).isEqualTo("""
        {
          "b": [
            1,
            2.50,
            12345678901234567890
          ],
          "a": {
            "x": null,
            "y": true
          },
          "s": "é\\n"
        }""");
  }

  @Test
  void jsonTreeIsLazyAndLabelled() throws Exception {
    JsonTreeNode root = JsonDocument.parse("{\"list\":[{\"k\":\"v\"},3],\"empty\":{}}".getBytes(StandardCharsets.UTF_8)).tree();
    assertThat(root.key()).isNull();
    assertThat(root.label()).isEqualTo("{2}");
    List<JsonTreeNode> top = root.children();
    assertThat(top).extracting(JsonTreeNode::label).containsExactly("list: [2]", "empty: {0}");
    assertThat(top.get(0).children()).extracting(JsonTreeNode::label).containsExactly("[0]: {1}", "[1]: 3");
    assertThat(top.get(0).children().get(0).children().get(0).label()).isEqualTo("k: \"v\"");
    assertThat(top.get(0).children().get(0).children().get(0).kind()).isEqualTo("string");
    assertThat(top.get(1).isContainer()).isTrue();
    assertThat(top.get(1).childCount()).isZero();
  }

  @Test
  void invalidJsonSaysWhere() {
    assertThatThrownBy(() -> JsonDocument.parse("{\"a\":\n  tru}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(JsonDocument.JsonSyntaxException.class).hasMessageContaining("line 2");
    assertThatThrownBy(() -> JsonDocument.parse("{} {}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(JsonDocument.JsonSyntaxException.class);
    assertThatThrownBy(() -> JsonDocument.parse(new byte[0])).isInstanceOf(JsonDocument.JsonSyntaxException.class);
  }

  @Test
  void formUrlEncoded() {
    List<Param> p = FormUrlEncoded.parse("q=caf%C3%A9+au+lait&empty=&flag&a=1&a=2&&bad=%zz%4&plus=%2B", StandardCharsets.UTF_8);
    assertThat(p).containsExactly(new Param("q", "café au lait"), new Param("empty", ""), new Param("flag", ""),
        new Param("a", "1"), new Param("a", "2"), new Param("bad", "%zz%4"), new Param("plus", "+"));
    assertThat(FormUrlEncoded.parse("n=%E9", StandardCharsets.ISO_8859_1)).containsExactly(new Param("n", "é"));
    assertThat(FormUrlEncoded.parse("", StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void hexDump() {
    byte[] b = "Hello, world!\n".getBytes(StandardCharsets.US_ASCII);
    byte[] all = new byte[18];
    System.arraycopy(b, 0, all, 0, b.length);
    all[14] = 0;
    all[15] = (byte) 0xff;
    all[16] = 'A';
    all[17] = 0x7f;
    assertThat(HexDump.format(all)).isEqualTo(
        "00000000  48 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0a 00 ff  |Hello, world!...|\n"
            + "00000010  41 7f                                             |A.|\n");
    assertThat(HexDump.format(all, 0)).isEmpty();
    assertThat(HexDump.format(new byte[16 * 3]).lines()).hasSize(3)
        .allSatisfy(l -> assertThat(l.length()).isEqualTo(HexDump.LINE - 1));
  }
}
