package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Headers;

/**
 * One header field seen as the text {@code name: value} without concatenating it. Mutable: {@link
 * #reset} points it at another field; one instance per thread (see {@link Scratch}).
 */
final class HeaderLine implements CharSequence {
  private String name = "";
  private String value = "";

  HeaderLine reset(Headers.Field field) {
    name = field.name();
    value = field.value();
    return this;
  }

  @Override
  public int length() {
    return name.length() + 2 + value.length();
  }

  @Override
  public char charAt(int index) {
    int n = name.length();
    if (index < n) {
      return name.charAt(index);
    }
    if (index == n) {
      return ':';
    }
    if (index == n + 1) {
      return ' ';
    }
    return value.charAt(index - n - 2);
  }

  @Override
  public CharSequence subSequence(int start, int end) {
    return toString().substring(start, end);
  }

  @Override
  public String toString() {
    return name + ": " + value;
  }
}
