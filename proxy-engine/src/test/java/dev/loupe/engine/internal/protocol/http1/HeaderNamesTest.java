package dev.loupe.engine.internal.protocol.http1;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.AsciiString;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;

/** The common-name table: every name found in any case as the one constant, nothing else found. */
class HeaderNamesTest {
  @Test
  void everyNettyNameIsFoundInAnyCaseAsItsConstant() throws Exception {
    int n = 0;
    for (Field f : HttpHeaderNames.class.getFields()) {
      if (!Modifier.isStatic(f.getModifiers()) || f.getType() != AsciiString.class) {
        continue;
      }
      AsciiString name = (AsciiString) f.get(null);
      assertThat((Object) HeaderNames.lowerCase(name)).isSameAs(name);
      assertThat((Object) HeaderNames.lowerCase(name.toString())).isSameAs(name);
      assertThat((Object) HeaderNames.lowerCase(name.toUpperCase())).isSameAs(name);
      assertThat((Object) HeaderNames.lowerCase(new StringBuilder(capitalized(name.toString())))).isSameAs(name);
      n++;
    }
    assertThat(n).isGreaterThan(80);
  }

  @Test
  void extraNamesAreFoundAndLowerCase() {
    assertThat((Object) HeaderNames.lowerCase("X-Content-Type-Options")).hasToString("x-content-type-options");
    assertThat((Object) HeaderNames.lowerCase(new AsciiString("Strict-Transport-Security")))
        .hasToString("strict-transport-security");
  }

  @Test
  void otherNamesAreNotFound() {
    assertThat((Object) HeaderNames.lowerCase("X-Loupe-Test")).isNull();
    assertThat((Object) HeaderNames.lowerCase("content-typ")).isNull();
    assertThat((Object) HeaderNames.lowerCase("content-typex")).isNull();
    assertThat((Object) HeaderNames.lowerCase("")).isNull();
    assertThat((Object) HeaderNames.lowerCase("contenT-lengtH ")).isNull();
  }

  private static String capitalized(String name) {
    StringBuilder b = new StringBuilder(name);
    for (int i = 0; i < b.length(); i++) {
      if (i == 0 || b.charAt(i - 1) == '-') {
        b.setCharAt(i, Character.toUpperCase(b.charAt(i)));
      }
    }
    return b.toString();
  }
}
