package dev.loupe.app.connect;

import dev.loupe.ca.export.JavaTrustStore;
import dev.loupe.engine.api.ListenAddress;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The shell setup that points command-line clients at Loupe and makes them trust its CA, for bash,
 * zsh, fish and PowerShell ({@code eval "$(loupe env --shell bash)"}, the window's "Copy setup",
 * "Open terminal"): the proxy variables and, per tool, the variable that makes it trust Loupe —
 * curl, git, Python (requests, httpx, urllib), Node, Go, Ruby, npm, pip and Java — each with a
 * comment saying what it does. {@link #unset} undoes it.
 *
 * <p>Pure: text in, text out.
 */
public final class TerminalSetup {
  /** The shells Loupe writes setup for. */
  public enum Shell {
    BASH("bash"), ZSH("zsh"), FISH("fish"), PWSH("PowerShell");

    private final String displayName;

    Shell(String displayName) {
      this.displayName = displayName;
    }

    public String displayName() {
      return displayName;
    }

    /** {@code bash}, {@code zsh}, {@code fish}, {@code pwsh}/{@code powershell}. */
    public static Shell parse(String name) {
      return switch (name.toLowerCase(Locale.ROOT)) {
        case "bash", "sh" -> BASH;
        case "zsh" -> ZSH;
        case "fish" -> FISH;
        case "pwsh", "powershell" -> PWSH;
        default -> throw new IllegalArgumentException("unknown shell '" + name + "' (bash, zsh, fish or pwsh)");
      };
    }
  }

  /**
   * Where clients go and what they trust.
   *
   * @param proxy    Loupe's address as clients reach it (a loopback address for this machine)
   * @param username the proxy user name when local clients must authenticate, else null
   * @param password its password, or null
   * @param files    the CA, bundle and Java trust store
   */
  public record Target(InetSocketAddress proxy, String username, String password, ClientFiles files) {
    public Target {
      Objects.requireNonNull(proxy, "proxy");
      Objects.requireNonNull(files, "files");
    }

    /** {@code http://[user:pass@]host:port}. */
    public String proxyUrl() {
      String auth = username == null ? "" : encode(username) + ":" + encode(password) + "@";
      return "http://" + auth + ListenAddress.format(proxy);
    }

    private static String encode(String s) {
      return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
  }

  /** One variable the setup sets, and why. */
  record Variable(String name, String value, String comment) {}

  private TerminalSetup() {}

  /** The variables, in order, with their comments. */
  static List<Variable> variables(Target t) {
    String url = t.proxyUrl();
    String host = t.proxy().getAddress().getHostAddress();
    int port = t.proxy().getPort();
    String bundle = t.files().bundle().toString();
    List<Variable> v = new ArrayList<>();
    String proxied = "curl, wget, git, Python (requests, httpx, urllib), Go, Ruby, pip and Node with"
        + " NODE_USE_ENV_PROXY send their";
    v.add(new Variable("http_proxy", url, proxied + " plain-HTTP requests through Loupe"));
    v.add(new Variable("HTTP_PROXY", url, "the same, for tools that read the upper-case name"));
    v.add(new Variable("https_proxy", url, "...and their HTTPS requests (a CONNECT tunnel Loupe decrypts)"));
    v.add(new Variable("HTTPS_PROXY", url, "the same, upper case (Go reads this one)"));
    v.add(new Variable("SSL_CERT_FILE", bundle, "OpenSSL-based clients (Python urllib and httpx, Ruby, Go on"
        + " Linux) verify with this bundle: this system's roots plus Loupe's CA"));
    v.add(new Variable("CURL_CA_BUNDLE", bundle, "curl verifies with the same bundle"));
    v.add(new Variable("GIT_SSL_CAINFO", bundle, "git verifies with the same bundle"));
    v.add(new Variable("REQUESTS_CA_BUNDLE", bundle, "Python requests verifies with the same bundle"));
    v.add(new Variable("PIP_CERT", bundle, "pip verifies with the same bundle"));
    v.add(new Variable("NODE_EXTRA_CA_CERTS", t.files().caPem().toString(),
        "Node (and npm) add Loupe's CA to their built-in roots"));
    v.add(new Variable("NODE_USE_ENV_PROXY", "1", "Node 22.21+/24+: http, https and fetch use the proxy"
        + " variables above (older Node ignores it: give its requests an agent that speaks CONNECT)"));
    v.add(new Variable("npm_config_proxy", url, "npm's registry requests go through Loupe"));
    v.add(new Variable("npm_config_https_proxy", url, "...over HTTPS too"));
    String store = t.files().trustStore().toString();
    String storeArg = store.indexOf(' ') >= 0 ? "\"" + store + "\"" : store;
    v.add(new Variable("JAVA_TOOL_OPTIONS", "-Dhttp.proxyHost=" + host + " -Dhttp.proxyPort=" + port
        + " -Dhttps.proxyHost=" + host + " -Dhttps.proxyPort=" + port + " -Dhttp.nonProxyHosts="
        + " -Djavax.net.ssl.trustStore=" + storeArg + " -Djavax.net.ssl.trustStorePassword="
        + JavaTrustStore.PASSWORD + " -Djavax.net.ssl.trustStoreType=PKCS12",
        "Java: HttpURLConnection, and HttpClient built with ProxySelector.getDefault(), use Loupe (localhost"
            + " too) and trust a store Loupe wrote (the JDK's roots plus Loupe's CA)"
            + (t.username() == null ? "" : "; Java cannot send proxy credentials this way")));
    return v;
  }

  /** The setup for {@code shell}. */
  public static String script(Shell shell, Target t) {
    StringBuilder b = new StringBuilder();
    String comment = "# ";
    b.append(comment).append("Loupe at ").append(ListenAddress.format(t.proxy())).append(" (").append(shell.displayName())
        .append("): route this shell's HTTP(S) clients through Loupe and trust its CA.\n");
    b.append(comment).append(switch (shell) {
      case BASH, ZSH -> "Apply with: eval \"$(loupe env --shell " + shell.name().toLowerCase(Locale.ROOT) + ")\"";
      case FISH -> "Apply with: loupe env --shell fish | source";
      case PWSH -> "Apply with: loupe env --shell pwsh | Out-String | Invoke-Expression";
    }).append("; undo with --unset.\n");
    for (Variable v : variables(t)) {
      b.append(comment).append(v.comment()).append('\n');
      b.append(assignment(shell, v.name(), v.value())).append('\n');
    }
    return b.toString();
  }

  /** Removes what {@link #script} set. */
  public static String unset(Shell shell, Target t) {
    List<String> names = variables(t).stream().map(Variable::name).toList();
    return switch (shell) {
      case BASH, ZSH -> "unset " + String.join(" ", names) + "\n";
      case FISH -> "set -e " + String.join(" ", names) + "\n";
      case PWSH -> String.join("\n", names.stream()
          .map(n -> "Remove-Item Env:" + n + " -ErrorAction SilentlyContinue").toList()) + "\n";
    };
  }

  static String assignment(Shell shell, String name, String value) {
    return switch (shell) {
      case BASH, ZSH -> "export " + name + "='" + value.replace("'", "'\\''") + "'";
      case FISH -> "set -gx " + name + " '" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
      case PWSH -> "$env:" + name + " = '" + value.replace("'", "''") + "'";
    };
  }
}
