package dev.loupe.app.sysproxy;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * macOS: the web (HTTP) and secure web (HTTPS) proxy and the bypass domains of every enabled
 * network service, through {@code networksetup}. Untested on a real Mac.
 *
 * <p>Saved keys are {@code "<service>/web"}, {@code "<service>/secureweb"} (value {@code
 * "on|off <server> <port>"}, server may be empty) and {@code "<service>/bypass"} (newline-separated
 * domains, or null for none). networksetup cannot clear a server once set, so a service whose
 * server was empty gets its state turned off and keeps Loupe's address as an inert value.
 * networksetup cannot read proxy passwords either, so Loupe refuses to touch a service whose
 * proxy uses authentication rather than lose it.
 */
final class MacBackend implements ProxyBackend {
  static final String NETWORKSETUP = "networksetup";
  private static final String WEB = "/web";
  private static final String SECURE = "/secureweb";
  private static final String BYPASS = "/bypass";

  private final CommandRunner runner;

  MacBackend(CommandRunner runner) {
    this.runner = requireNonNull(runner, "runner");
  }

  @Override
  public String id() {
    return "macos";
  }

  @Override
  public String displayName() {
    return "macOS (networksetup)";
  }

  /** One proxy setting as {@code -getwebproxy} prints it. */
  record WebProxy(boolean enabled, String server, int port, boolean authenticated) {
    String save() {
      return (enabled ? "on" : "off") + " " + server + " " + port;
    }

    static WebProxy load(String saved) {
      String[] p = saved.split(" ", -1);
      if (p.length != 3) {
        throw new IllegalArgumentException("bad saved proxy: " + saved);
      }
      return new WebProxy(p[0].equals("on"), p[1], Integer.parseInt(p[2]), false);
    }
  }

  @Override
  public Map<String, String> capture() throws SystemProxyException {
    Map<String, String> saved = new LinkedHashMap<>();
    for (String service : services()) {
      WebProxy web = parseWebProxy(networksetup("-getwebproxy", service));
      WebProxy secure = parseWebProxy(networksetup("-getsecurewebproxy", service));
      if (web.authenticated() || secure.authenticated()) {
        throw new SystemProxyException("the proxy of network service '" + service + "' uses authentication, which"
            + " networksetup cannot read back; Loupe will not change it (switch it off in System Settings first)");
      }
      saved.put(service + WEB, web.save());
      saved.put(service + SECURE, secure.save());
      List<String> bypass = parseBypassDomains(networksetup("-getproxybypassdomains", service));
      saved.put(service + BYPASS, bypass.isEmpty() ? null : String.join("\n", bypass));
    }
    if (saved.isEmpty()) {
      throw new SystemProxyException("networksetup lists no enabled network service");
    }
    return saved;
  }

  @Override
  public void apply(ProxyTarget target, Map<String, String> previous) throws SystemProxyException {
    String port = Integer.toString(target.port());
    for (String service : servicesOf(previous)) {
      String prev = previous.get(service + BYPASS);
      List<String> bypass = ProxyTarget.merge(ProxyTarget.LOCAL_BYPASS,
          prev == null ? List.of() : List.of(prev.split("\n")));
      List<String> args = new ArrayList<>(List.of("-setproxybypassdomains", service));
      args.addAll(bypass);
      networksetup(args.toArray(String[]::new));
      networksetup("-setwebproxy", service, target.host(), port);
      networksetup("-setsecurewebproxy", service, target.host(), port);
      networksetup("-setwebproxystate", service, "on");
      networksetup("-setsecurewebproxystate", service, "on");
    }
  }

  @Override
  public void restore(Map<String, String> saved) throws SystemProxyException {
    for (String service : servicesOf(saved)) {
      // States first: once they are back, nothing goes through Loupe.
      WebProxy web = WebProxy.load(saved.get(service + WEB));
      WebProxy secure = WebProxy.load(saved.get(service + SECURE));
      networksetup("-setwebproxystate", service, web.enabled() ? "on" : "off");
      networksetup("-setsecurewebproxystate", service, secure.enabled() ? "on" : "off");
      if (!web.server().isEmpty()) {
        networksetup("-setwebproxy", service, web.server(), Integer.toString(web.port()));
        if (!web.enabled()) {
          networksetup("-setwebproxystate", service, "off"); // -setwebproxy turns it on
        }
      }
      if (!secure.server().isEmpty()) {
        networksetup("-setsecurewebproxy", service, secure.server(), Integer.toString(secure.port()));
        if (!secure.enabled()) {
          networksetup("-setsecurewebproxystate", service, "off");
        }
      }
      String bypass = saved.get(service + BYPASS);
      List<String> args = new ArrayList<>(List.of("-setproxybypassdomains", service));
      if (bypass == null) {
        args.add("Empty");
      } else {
        args.addAll(List.of(bypass.split("\n")));
      }
      networksetup(args.toArray(String[]::new));
    }
  }

  /** The enabled network services, in {@code -listallnetworkservices} order. */
  List<String> services() throws SystemProxyException {
    return parseServices(networksetup("-listallnetworkservices"));
  }

  /** {@code -listallnetworkservices}: a header line, then one service per line, '*' marks disabled ones. */
  static List<String> parseServices(String output) {
    List<String> out = new ArrayList<>();
    for (String line : output.split("\r?\n")) {
      if (line.isBlank() || line.startsWith("*") || line.startsWith("An asterisk")) {
        continue;
      }
      out.add(line.strip());
    }
    return out;
  }

  /** {@code -getwebproxy} / {@code -getsecurewebproxy}: Enabled, Server, Port, Authenticated Proxy Enabled. */
  static WebProxy parseWebProxy(String output) throws SystemProxyException {
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : output.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        fields.put(line.substring(0, colon).strip().toLowerCase(Locale.ROOT), line.substring(colon + 1).strip());
      }
    }
    String enabled = fields.get("enabled");
    String port = fields.get("port");
    if (enabled == null || port == null || !fields.containsKey("server")) {
      throw new SystemProxyException("unexpected networksetup output: " + output.strip());
    }
    int p;
    try {
      p = port.isEmpty() ? 0 : Integer.parseInt(port);
    } catch (NumberFormatException e) {
      throw new SystemProxyException("unexpected port in networksetup output: " + output.strip(), e);
    }
    return new WebProxy(enabled.equalsIgnoreCase("yes"), fields.get("server"), p,
        "1".equals(fields.get("authenticated proxy enabled")));
  }

  /** {@code -getproxybypassdomains}: one domain per line, or a sentence saying there are none. */
  static List<String> parseBypassDomains(String output) {
    List<String> out = new ArrayList<>();
    for (String line : output.split("\r?\n")) {
      String s = line.strip();
      if (s.isEmpty() || s.startsWith("There aren't any bypass domains")) {
        continue;
      }
      out.add(s);
    }
    return out;
  }

  private static List<String> servicesOf(Map<String, String> saved) {
    Set<String> services = new LinkedHashSet<>();
    for (String k : saved.keySet()) {
      services.add(k.substring(0, k.lastIndexOf('/')));
    }
    return new ArrayList<>(services);
  }

  /** Runs networksetup; it exits 0 on many errors, printing "** Error: ..." instead. */
  private String networksetup(String... args) throws SystemProxyException {
    List<String> argv = new ArrayList<>();
    argv.add(NETWORKSETUP);
    argv.addAll(List.of(args));
    CommandRunner.Output out = runner.check(argv);
    String text = out.stdout().strip();
    if (text.startsWith("** Error") || text.contains("is not a recognized network service")) {
      throw new SystemProxyException(CommandRunner.describe(argv) + " failed: " + text);
    }
    return out.stdout();
  }
}
