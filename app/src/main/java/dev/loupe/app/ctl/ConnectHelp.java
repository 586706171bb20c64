package dev.loupe.app.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Locale;

/** {@code connect_client}'s (and {@code loupe ctl connect}'s) text: the commands that send one kind of client through this Loupe. */
public final class ConnectHelp {
  private ConnectHelp() {}

  /** Instructions for {@code client}, from the status {@code GET /} reports (proxy, mode, CA path). */
  public static JsonNode instructions(JsonNode status, String client) {
    String proxy = status.path("proxy").asText();
    String mode = status.path("mode").asText("regular");
    String ca = status.path("caCertificate").asText(null);
    String url = "http://" + proxy;
    StringBuilder sb = new StringBuilder();
    if (mode.startsWith("reverse:")) {
      sb.append("Loupe runs as a reverse proxy for ").append(mode.substring("reverse:".length()))
          .append(": send requests to ").append(url).append(" (or https://").append(proxy)
          .append(") instead of the origin; no proxy setting is needed.\n");
      if (ca != null) {
        sb.append("Over HTTPS the client must trust Loupe's CA: ").append(ca).append('\n');
      }
      sb.append("Example: curl --cacert ").append(ca == null ? "CA.pem" : quote(ca)).append(" https://").append(proxy)
          .append("/\n");
      return TextNode.valueOf(sb.toString());
    }
    String cacert = ca == null ? "CA.pem" : quote(ca);
    sb.append("Loupe's proxy: ").append(url).append(" (HTTP and HTTPS via CONNECT). CA certificate to trust for HTTPS: ")
        .append(ca == null ? "(none: this Loupe has no CA)" : ca).append("\n\n");
    switch (client.toLowerCase(Locale.ROOT)) {
      case "env" -> sb.append("export http_proxy=").append(url).append(" https_proxy=").append(url)
          .append(" HTTP_PROXY=").append(url).append(" HTTPS_PROXY=").append(url).append("\n")
          .append("export SSL_CERT_FILE=").append(cacert).append(" CURL_CA_BUNDLE=").append(cacert)
          .append(" REQUESTS_CA_BUNDLE=").append(cacert).append(" NODE_EXTRA_CA_CERTS=").append(cacert).append('\n')
          .append("(SSL_CERT_FILE and the *_CA_BUNDLE variables replace the system CAs for that process: origins not"
              + " intercepted by Loupe then fail verification.)\n");
      case "chromium" -> sb.append("chromium --proxy-server=").append(url).append(" --user-data-dir=$(mktemp -d)\n")
          .append("Trust the CA (Linux, NSS): certutil -d sql:$HOME/.pki/nssdb -A -t \"C,,\" -n loupe -i ")
          .append(cacert).append('\n');
      case "firefox" -> sb.append("Settings -> Network Settings -> Manual proxy: HTTP Proxy ").append(proxy)
          .append(", \"Also use this proxy for HTTPS\".\nSettings -> Privacy & Security -> Certificates -> View"
              + " Certificates -> Authorities -> Import: ").append(cacert).append('\n');
      case "java" -> sb.append("java -Dhttp.proxyHost=").append(host(proxy)).append(" -Dhttp.proxyPort=")
          .append(port(proxy)).append(" -Dhttps.proxyHost=").append(host(proxy)).append(" -Dhttps.proxyPort=")
          .append(port(proxy)).append(" -Djavax.net.ssl.trustStore=loupe.p12 ...\n")
          .append("keytool -importcert -noprompt -alias loupe -file ").append(cacert)
          .append(" -keystore loupe.p12 -storepass changeit -storetype PKCS12\n")
          .append("(JDK HttpClient: HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress(\"")
          .append(host(proxy)).append("\", ").append(port(proxy)).append(")))\n");
      case "node" -> sb.append("NODE_EXTRA_CA_CERTS=").append(cacert).append(" HTTPS_PROXY=").append(url)
          .append(" HTTP_PROXY=").append(url).append(" node app.js\n")
          .append("(Node's fetch honours the proxy variables from Node 24 with NODE_USE_ENV_PROXY=1; older code needs"
              + " an agent such as undici's ProxyAgent(\"").append(url).append("\"))\n");
      case "python" -> sb.append("HTTPS_PROXY=").append(url).append(" HTTP_PROXY=").append(url)
          .append(" REQUESTS_CA_BUNDLE=").append(cacert).append(" SSL_CERT_FILE=").append(cacert)
          .append(" python app.py\n(requests and httpx honour these variables)\n");
      default -> sb.append("curl --proxy ").append(url).append(" --cacert ").append(cacert)
          .append(" https://example.com/\n");
    }
    return TextNode.valueOf(sb.toString());
  }

  private static String quote(String path) {
    return path.matches("[A-Za-z0-9_./:@%+-]+") ? path : "'" + path.replace("'", "'\\''") + "'";
  }

  private static String host(String hostPort) {
    int c = hostPort.lastIndexOf(':');
    String h = c < 0 ? hostPort : hostPort.substring(0, c);
    return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
  }

  private static String port(String hostPort) {
    int c = hostPort.lastIndexOf(':');
    return c < 0 ? "8080" : hostPort.substring(c + 1);
  }
}
