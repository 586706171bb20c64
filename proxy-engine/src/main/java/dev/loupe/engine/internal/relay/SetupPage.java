package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.SetupDownloads;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Loupe's setup page: what a phone or another machine needs to use this proxy — the CA certificate
 * as PEM, DER ({@code .crt} for Android, {@code .cer} for Windows) and an iOS configuration profile,
 * with short instructions per system. Served for the reserved host {@link #HOST} (through the proxy,
 * never forwarded) and for a plain {@code GET /} on the listener itself.
 *
 * <p>Stateless; builds a fresh response per request (the page is small).
 */
final class SetupPage {
  /** The reserved host name Loupe answers itself. */
  static final String HOST = "loupe.setup";

  private SetupPage() {}

  /** True when {@code host} (any case, optional trailing dot) is {@link #HOST}. */
  static boolean isSetupHost(String host) {
    if (host == null) {
      return false;
    }
    String h = host.toLowerCase(Locale.ROOT);
    return h.equals(HOST) || h.equals(HOST + ".");
  }

  /** The path part of a request target (no query), for {@link #serves}. */
  static String path(String target) {
    int q = target.indexOf('?');
    String p = q >= 0 ? target.substring(0, q) : target;
    int hash = p.indexOf('#');
    return hash >= 0 ? p.substring(0, hash) : p;
  }

  /** Whether {@code path} is one of the page's own (the page and its downloads). */
  static boolean serves(String path) {
    return switch (path) {
      case "/", "/cert/pem", "/cert/crt", "/cert/cer", "/cert/mobileconfig" -> true;
      default -> false;
    };
  }

  /**
   * The answer to {@code method path}: the page, a download, 404 for other paths, 405 for methods
   * other than GET and HEAD (with an empty body for HEAD).
   *
   * @param downloads     what to offer, or null (the page then says the CA is not available here)
   * @param proxyAddress  how this client reached Loupe ({@code host:port}), shown as the proxy to
   *                      set; null when the client already uses Loupe as its proxy
   */
  static FullHttpResponse answer(HttpMethod method, String path, SetupDownloads downloads, String proxyAddress,
      HttpVersion version) {
    boolean head = method.equals(HttpMethod.HEAD);
    if (!head && !method.equals(HttpMethod.GET)) {
      FullHttpResponse r = text(version, HttpResponseStatus.METHOD_NOT_ALLOWED, "Only GET and HEAD here.\n", head);
      r.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
      return r;
    }
    if (path.equals("/")) {
      return response(version, HttpResponseStatus.OK, "text/html; charset=utf-8",
          html(downloads, proxyAddress).getBytes(StandardCharsets.UTF_8), null, head);
    }
    if (!serves(path)) {
      return text(version, HttpResponseStatus.NOT_FOUND, "Not found. Loupe's setup page is at /\n", head);
    }
    if (downloads == null) {
      return text(version, HttpResponseStatus.NOT_FOUND, "This Loupe has no CA certificate to offer.\n", head);
    }
    return switch (path) {
      case "/cert/pem" -> response(version, HttpResponseStatus.OK, "application/x-pem-file", downloads.pem(),
          "loupe-ca.pem", head);
      case "/cert/crt" -> response(version, HttpResponseStatus.OK, "application/x-x509-ca-cert", downloads.der(),
          "loupe-ca.crt", head);
      case "/cert/cer" -> response(version, HttpResponseStatus.OK, "application/pkix-cert", downloads.der(),
          "loupe-ca.cer", head);
      default -> response(version, HttpResponseStatus.OK, "application/x-apple-aspen-config", downloads.mobileConfig(),
          "loupe-ca.mobileconfig", head);
    };
  }

  private static FullHttpResponse text(HttpVersion version, HttpResponseStatus status, String body, boolean head) {
    return response(version, status, "text/plain; charset=utf-8", body.getBytes(StandardCharsets.UTF_8), null, head);
  }

  private static FullHttpResponse response(HttpVersion version, HttpResponseStatus status, String type, byte[] body,
      String attachment, boolean head) {
    FullHttpResponse r = new DefaultFullHttpResponse(version, status,
        head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    r.headers().set("X-Content-Type-Options", "nosniff");
    if (attachment != null) {
      r.headers().set(HttpHeaderNames.CONTENT_DISPOSITION, "attachment; filename=\"" + attachment + "\"");
    }
    return r;
  }

  static String html(SetupDownloads d, String proxyAddress) {
    StringBuilder b = new StringBuilder(4096);
    b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        + "<title>Loupe setup</title><style>"
        + "body{font-family:system-ui,sans-serif;max-width:44em;margin:1em auto;padding:0 1em;line-height:1.45;color:#222}"
        + "h1{font-size:1.5em}h2{font-size:1.1em;margin-top:1.4em}code{background:#f2f2f2;padding:0 .2em;word-break:break-all}"
        + ".dl a{display:inline-block;margin:.25em .5em .25em 0;padding:.5em .9em;border-radius:6px;background:#1f6feb;"
        + "color:#fff;text-decoration:none}.warn{background:#fff4e5;border-left:4px solid #f0a020;padding:.5em .8em}"
        + "</style></head><body>\n<h1>Loupe setup</h1>\n"
        // The window's QR code carries the proxy settings in the fragment, which never leaves the
        // device: shown here to type into the Wi-Fi proxy fields.
        + "<div id=\"wifi\" class=\"warn\" hidden><b>Wi-Fi proxy settings</b> (manual):<br>Server <code id=\"w-host\">"
        + "</code> Port <code id=\"w-port\"></code><span id=\"w-auth\" hidden><br>User <code id=\"w-user\"></code>"
        + " Password <code id=\"w-pass\"></code></span></div>\n<script>(function(){var h=new URLSearchParams("
        + "location.hash.slice(1));var p=h.get('proxy');if(!p)return;var i=p.lastIndexOf(':');"
        + "document.getElementById('w-host').textContent=p.slice(0,i).replace(/^\\[|\\]$/g,'');"
        + "document.getElementById('w-port').textContent=p.slice(i+1);if(h.get('user')){"
        + "document.getElementById('w-user').textContent=h.get('user');"
        + "document.getElementById('w-pass').textContent=h.get('password')||'';"
        + "document.getElementById('w-auth').hidden=false;}document.getElementById('wifi').hidden=false;})();"
        + "</script>\n");
    if (proxyAddress != null) {
      b.append("<p>To send this device's traffic through Loupe, set its HTTP proxy (Wi-Fi settings → proxy → manual)"
          + " to <code>").append(escape(proxyAddress)).append("</code>, then open <code>http://").append(HOST)
          .append("/</code> or this page again and install the certificate below.</p>\n");
    } else {
      b.append("<p>This device uses Loupe as its proxy. To let Loupe show HTTPS traffic, install and trust Loupe's"
          + " certificate authority (CA) below.</p>\n");
    }
    if (d == null) {
      b.append("<p class=\"warn\">This Loupe has no CA certificate to offer (it presents a certificate of its own).</p>");
      return b.append("</body></html>\n").toString();
    }
    b.append("<p>CA: <b>").append(escape(d.caName())).append("</b><br>SHA-256 fingerprint: <code>")
        .append(escape(d.sha256Fingerprint())).append("</code></p>\n")
        .append("<p class=\"dl\"><a href=\"/cert/pem\">PEM (.pem)</a><a href=\"/cert/crt\">Android (.crt)</a>"
            + "<a href=\"/cert/mobileconfig\">iPhone / iPad / Mac (.mobileconfig)</a><a href=\"/cert/cer\">Windows (.cer)</a></p>\n")
        .append("<h2>Android</h2><ol><li>Download the <a href=\"/cert/crt\">.crt</a>.</li>"
            + "<li>Settings → Security (or Security &amp; privacy) → Encryption &amp; credentials → Install a certificate"
            + " → CA certificate, and pick the file.</li></ol>"
            + "<p>Since Android 7 only apps that opt in trust user-installed CAs (browsers such as Chrome do;"
            + " your own app needs a <code>network_security_config</code> allowing user certificates).</p>\n")
        .append("<h2>iPhone and iPad</h2><ol><li>Open this page in Safari and download the"
            + " <a href=\"/cert/mobileconfig\">profile</a>.</li>"
            + "<li>Settings → Profile Downloaded → Install.</li>"
            + "<li>Settings → General → About → Certificate Trust Settings → switch on full trust for the Loupe CA.</li></ol>\n")
        .append("<h2>macOS</h2><p>Open the <a href=\"/cert/mobileconfig\">profile</a> (System Settings → Privacy &amp;"
            + " Security → Profiles), or: <code>sudo security add-trusted-cert -d -r trustRoot -k"
            + " /Library/Keychains/System.keychain loupe-ca.pem</code></p>\n")
        .append("<h2>Windows</h2><p>Open the <a href=\"/cert/cer\">.cer</a> → Install Certificate → Local Machine →"
            + " Trusted Root Certification Authorities, or (as administrator):"
            + " <code>certutil -addstore root loupe-ca.cer</code></p>\n")
        .append("<h2>Linux</h2><p><code>sudo cp loupe-ca.pem /usr/local/share/ca-certificates/loupe-ca.crt &amp;&amp;"
            + " sudo update-ca-certificates</code> (Debian, Ubuntu); Chromium: <code>certutil -d sql:$HOME/.pki/nssdb"
            + " -A -t \"C,,\" -n loupe -i loupe-ca.pem</code></p>\n")
        .append("<h2>Firefox (any system)</h2><p>Settings → Privacy &amp; Security → Certificates → View Certificates"
            + " → Authorities → Import the <a href=\"/cert/pem\">.pem</a>, and tick \"Trust this CA to identify websites\".</p>\n")
        .append("<p class=\"warn\">Anyone holding this CA's key can read and change this device's HTTPS traffic."
            + " Remove the certificate when you no longer use Loupe.</p>\n</body></html>\n");
    return b.toString();
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
