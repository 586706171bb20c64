package dev.loupe.ca.trust;

/** Quoting for the command lines shown to users (POSIX shells; PowerShell/cmd for Windows paths). */
final class Shell {
  private Shell() {}

  /** {@code s} as one POSIX shell word: bare when safe, otherwise single-quoted. */
  static String quote(String s) {
    if (!s.isEmpty() && s.matches("[A-Za-z0-9_@%+=:,./-]+")) {
      return s;
    }
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /** {@code s} double-quoted for cmd.exe and PowerShell when it has spaces. */
  static String quoteWindows(String s) {
    return s.matches("[^\\s\"]+") ? s : "\"" + s + "\"";
  }
}
