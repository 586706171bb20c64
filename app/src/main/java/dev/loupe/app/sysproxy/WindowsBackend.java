package dev.loupe.app.sysproxy;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Windows: the per-user WinINET settings (what Edge, Chrome and most programs use) in {@code
 * HKCU\...\Internet Settings}, through {@code reg}, then a refresh through PowerShell calling
 * {@code InternetSetOption} with {@code INTERNET_OPTION_SETTINGS_CHANGED} (39) and {@code
 * INTERNET_OPTION_REFRESH} (37) so running programs notice. Untested on real Windows.
 *
 * <p>Saved keys are the value names {@code ProxyEnable}, {@code ProxyServer} and {@code
 * ProxyOverride}, each mapped to {@code "<REG_TYPE> <data>"} as {@code reg query} printed it, or
 * null when the value did not exist (restore deletes it then). An automatic configuration script
 * ({@code AutoConfigURL}) is left alone: where one is set, Windows prefers it to the manual proxy.
 */
final class WindowsBackend implements ProxyBackend {
  static final String KEY = "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Internet Settings";
  static final String PROXY_ENABLE = "ProxyEnable";
  static final String PROXY_SERVER = "ProxyServer";
  static final String PROXY_OVERRIDE = "ProxyOverride";
  static final List<String> VALUES = List.of(PROXY_ENABLE, PROXY_SERVER, PROXY_OVERRIDE);
  /** WinINET has no CIDR: 127.0.0.0/8 is 127.*, IPv6 literals go in brackets. */
  static final List<String> LOCAL_BYPASS = List.of("localhost", "127.*", "[::1]");

  /** The PowerShell script of {@link #refresh()}, run with -EncodedCommand so no quoting can break it. */
  static final String REFRESH_SCRIPT = String.join("\n",
      "$sig = '[DllImport(\"wininet.dll\", SetLastError = true)] public static extern bool"
          + " InternetSetOption(IntPtr hInternet, int dwOption, IntPtr lpBuffer, int dwBufferLength);'",
      "$wininet = Add-Type -MemberDefinition $sig -Name WinInet -Namespace LoupeSystemProxy -PassThru",
      "if (-not $wininet::InternetSetOption([IntPtr]::Zero, 39, [IntPtr]::Zero, 0)) { exit 1 }",
      "if (-not $wininet::InternetSetOption([IntPtr]::Zero, 37, [IntPtr]::Zero, 0)) { exit 1 }");

  private static final Pattern VALUE_LINE = Pattern.compile("^ {4}(.+?) {4}(REG_[A-Z_]+)(?: {4}(.*))?$");

  private final CommandRunner runner;

  WindowsBackend(CommandRunner runner) {
    this.runner = requireNonNull(runner, "runner");
  }

  @Override
  public String id() {
    return "windows";
  }

  @Override
  public String displayName() {
    return "Windows (Internet Settings)";
  }

  @Override
  public Map<String, String> capture() throws SystemProxyException {
    Map<String, String> all = parseQuery(runner.check(List.of("reg", "query", KEY)).stdout());
    Map<String, String> saved = new LinkedHashMap<>();
    for (String v : VALUES) {
      saved.put(v, all.get(v));
    }
    return saved;
  }

  /** {@code reg query KEY}: the key's path, then {@code "    Name    REG_TYPE    data"} per value. */
  static Map<String, String> parseQuery(String output) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : output.split("\r?\n")) {
      Matcher m = VALUE_LINE.matcher(line);
      if (m.matches()) {
        out.put(m.group(1), m.group(2) + " " + (m.group(3) == null ? "" : m.group(3).stripTrailing()));
      }
    }
    return out;
  }

  @Override
  public void apply(ProxyTarget target, Map<String, String> previous) throws SystemProxyException {
    String hostPort = target.hostPort();
    String previousOverride = previous.get(PROXY_OVERRIDE) == null ? "" : data(previous.get(PROXY_OVERRIDE));
    List<String> bypass = ProxyTarget.merge(LOCAL_BYPASS, Arrays.asList(previousOverride.split(";")));
    add(PROXY_SERVER, "REG_SZ", "http=" + hostPort + ";https=" + hostPort);
    add(PROXY_OVERRIDE, "REG_SZ", String.join(";", bypass));
    add(PROXY_ENABLE, "REG_DWORD", "1");
    refresh();
  }

  @Override
  public void restore(Map<String, String> saved) throws SystemProxyException {
    for (String v : List.of(PROXY_ENABLE, PROXY_SERVER, PROXY_OVERRIDE)) {
      if (!saved.containsKey(v)) {
        continue;
      }
      String s = saved.get(v);
      if (s == null) {
        delete(v);
      } else {
        String type = s.substring(0, s.indexOf(' '));
        String data = data(s);
        if (type.equals("REG_DWORD") && data.toLowerCase(Locale.ROOT).startsWith("0x")) {
          data = Long.toString(Long.parseLong(data.substring(2), 16));
        }
        add(v, type, data);
      }
    }
    refresh();
  }

  private static String data(String saved) {
    return saved.substring(saved.indexOf(' ') + 1);
  }

  private void add(String name, String type, String data) throws SystemProxyException {
    runner.check(List.of("reg", "add", KEY, "/v", name, "/t", type, "/d", data, "/f"));
  }

  private void delete(String name) throws SystemProxyException {
    // Deleting a value that is already gone fails; that is the state we want.
    CommandRunner.Output out = runner.run(List.of("reg", "delete", KEY, "/v", name, "/f"));
    if (out.exitCode() != 0 && readValue(name) != null) {
      throw new SystemProxyException("reg delete " + KEY + " /v " + name + " failed (exit " + out.exitCode() + "): "
          + out.errorText());
    }
  }

  private String readValue(String name) throws SystemProxyException {
    return parseQuery(runner.check(List.of("reg", "query", KEY)).stdout()).get(name);
  }

  /** Tells WinINET (and so running browsers) that the settings changed. */
  void refresh() throws SystemProxyException {
    runner.check(refreshCommand());
  }

  static List<String> refreshCommand() {
    String encoded = Base64.getEncoder().encodeToString(REFRESH_SCRIPT.getBytes(StandardCharsets.UTF_16LE));
    return new ArrayList<>(List.of("powershell.exe", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass",
        "-EncodedCommand", encoded));
  }
}
