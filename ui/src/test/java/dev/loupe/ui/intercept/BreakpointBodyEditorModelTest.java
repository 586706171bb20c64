package dev.loupe.ui.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The body editor's text / JSON / hex model. */
class BreakpointBodyEditorModelTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void picksTheModeFromTheContentAndGivesTheOriginalBytesBackWhenUntouched() {
    BodyEditorModel m = new BodyEditorModel();
    m.load(utf8("  {\"k\": [1, 2]}"), "text/plain");
    assertThat(m.modeProperty().get()).isEqualTo(BodyEditorModel.Mode.JSON);
    m.load(utf8("a=1&b=2"), "application/x-www-form-urlencoded");
    assertThat(m.modeProperty().get()).isEqualTo(BodyEditorModel.Mode.TEXT);
    byte[] binary = {0, (byte) 0xff, (byte) 0xfe, 10, 65};
    m.load(binary, "application/octet-stream");
    assertThat(m.modeProperty().get()).isEqualTo(BodyEditorModel.Mode.HEX);
    assertThat(m.textProperty().get()).isEqualTo("00 ff fe 0a 41");
    assertThat(m.bytes()).isSameAs(binary);
    assertThat(m.changed()).isFalse();
  }

  @Test
  void hexRoundTripsAndBadHexSaysWhere() {
    BodyEditorModel m = new BodyEditorModel();
    byte[] body = new byte[20];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) ('a' + i);
    }
    m.load(body, "text/plain");
    assertThat(m.mode(BodyEditorModel.Mode.HEX)).isTrue();
    assertThat(m.textProperty().get())
        .isEqualTo("61 62 63 64 65 66 67 68  69 6a 6b 6c 6d 6e 6f 70\n71 72 73 74");
    assertThat(m.bytes()).isEqualTo(body);
    m.textProperty().set("41 42\n43 zz");
    assertThat(m.mode(BodyEditorModel.Mode.TEXT)).isFalse();
    assertThat(m.errorProperty().get()).isEqualTo("Not hex: 'z' on line 2");
    assertThat(m.modeProperty().get()).isEqualTo(BodyEditorModel.Mode.HEX);
    m.textProperty().set("41 42\n43 44");
    assertThat(m.errorProperty().get()).as("typing clears the error").isEmpty();
    assertThat(m.mode(BodyEditorModel.Mode.TEXT)).isTrue();
    assertThat(m.textProperty().get()).isEqualTo("ABCD");
    assertThat(m.changed()).isTrue();
  }

  @Test
  void bytesThatAreNotUtf8StayInHex() {
    BodyEditorModel m = new BodyEditorModel();
    m.load(new byte[] {(byte) 0xc3, (byte) 0x28}, null);
    assertThat(m.mode(BodyEditorModel.Mode.TEXT)).isFalse();
    assertThat(m.errorProperty().get()).isEqualTo("The body is not UTF-8 text; edit it as hex");
    assertThat(m.bytes()).containsExactly(0xc3, 0x28);
  }

  @Test
  void prettyPrintReindentsJsonOrSaysWhyNot() {
    BodyEditorModel m = new BodyEditorModel();
    m.load(utf8("{\"a\":1,\"b\":[true,null]}"), "application/json");
    assertThat(m.prettyPrint()).isTrue();
    assertThat(m.textProperty().get()).isEqualTo("{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ]\n}");
    assertThat(new String(m.bytes(), StandardCharsets.UTF_8)).isEqualTo(m.textProperty().get());
    m.load(utf8("{\"a\":"), "application/json");
    assertThat(m.prettyPrint()).isFalse();
    assertThat(m.errorProperty().get()).startsWith("Not JSON: ");
    assertThat(m.textProperty().get()).isEqualTo("{\"a\":");
  }

  @Test
  void anEditThatLooksLikeTheOriginalInAnotherModeIsStillAnEdit() {
    BodyEditorModel m = new BodyEditorModel();
    m.load(utf8("61 62"), "text/plain"); // the text happens to be hex
    m.textProperty().set("ab");
    assertThat(m.mode(BodyEditorModel.Mode.HEX)).isTrue();
    assertThat(m.textProperty().get()).isEqualTo("61 62");
    assertThat(m.bytes()).isEqualTo(utf8("ab"));
  }

  @Test
  void aHugeBodyIsNotEditableAndGoesUnchanged() {
    BodyEditorModel m = new BodyEditorModel();
    byte[] big = new byte[BodyEditorModel.EDIT_LIMIT + 1];
    m.load(big, "application/octet-stream");
    assertThat(m.editableProperty().get()).isFalse();
    assertThat(m.textProperty().get()).isEmpty();
    assertThat(m.bytes()).isSameAs(big);
    assertThat(m.prettyPrint()).isFalse();
  }
}
