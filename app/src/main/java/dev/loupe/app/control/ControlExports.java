package dev.loupe.app.control;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.engine.api.intercept.ContentCoding;
import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.har.HarWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The control API's read-outs beyond flow listings: {@code GET /har} (the selected flows as one
 * HAR 1.2 document), {@code GET /ca} (the CA certificate clients must trust) and
 * {@code GET /flows/ID/body} (one body, or a slice of it, as text or base64).
 *
 * <p>Stateless and thread-safe; runs on the control server's worker threads.
 */
final class ControlExports {
  /** The largest body slice {@code GET /flows/ID/body} answers with. */
  static final int MAX_SLICE = 16 << 20;

  private ControlExports() {}

  /** {@code GET /har}: the flows as a HAR document, in the same order as {@code GET /flows}. */
  static ControlApi.Reply har(List<Flow> flows) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
    try {
      HarWriter.write(flows, out);
    } catch (IOException e) {
      throw new ApiError(500, "could not write the HAR: " + e.getMessage());
    }
    return new ControlApi.Reply(200, out.toString(StandardCharsets.UTF_8));
  }

  /** {@code GET /ca}: where the CA certificate is, its PEM, subject, validity and SHA-256 fingerprint. */
  static ObjectNode ca(Path certificate) {
    if (certificate == null) {
      throw ApiError.notFound("this Loupe has no CA certificate (it was started with its own --cert)");
    }
    byte[] pem;
    X509Certificate cert;
    try {
      pem = Files.readAllBytes(certificate);
      cert = (X509Certificate) CertificateFactory.getInstance("X.509")
          .generateCertificate(new java.io.ByteArrayInputStream(pem));
    } catch (IOException | CertificateException e) {
      throw new ApiError(500, "cannot read the CA certificate " + certificate + ": " + e.getMessage());
    }
    ObjectNode o = ControlJson.object();
    o.put("path", certificate.toAbsolutePath().toString());
    o.put("subject", cert.getSubjectX500Principal().getName());
    o.put("notBefore", cert.getNotBefore().toInstant().toString());
    o.put("notAfter", cert.getNotAfter().toInstant().toString());
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(cert.getEncoded());
      o.put("sha256", HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest));
    } catch (NoSuchAlgorithmException | java.security.cert.CertificateEncodingException e) {
      throw new IllegalStateException(e);
    }
    o.put("pem", new String(pem, StandardCharsets.US_ASCII));
    return o;
  }

  /**
   * {@code GET /flows/ID/body?side=request|response&original=BOOL&decoded=BOOL&offset=N&length=N&encoding=auto|text|base64}.
   * {@code decoded} (default true) undoes gzip/deflate as editors show it; {@code original} reads the
   * body before a rule or breakpoint changed it.
   */
  static ObjectNode body(Flow f, Map<String, String> query) {
    String side = query.getOrDefault("side", "response").toLowerCase(Locale.ROOT);
    boolean original = flag(query, "original", false);
    boolean decoded = flag(query, "decoded", true);
    Headers headers;
    Body body;
    switch (side) {
      case "request" -> {
        var head = original && f.originalRequest() != null ? f.originalRequest() : f.request();
        headers = head == null ? Headers.EMPTY : head.headers();
        body = original && f.originalRequestBody() != null ? f.originalRequestBody() : f.requestBody();
      }
      case "response" -> {
        var head = original && f.originalResponse() != null ? f.originalResponse() : f.response();
        if (head == null) {
          throw ApiError.notFound("flow " + f.id() + " has no response" + (f.error() != null ? " (" + f.error() + ")" : " yet"));
        }
        headers = head.headers();
        body = original && f.originalResponseBody() != null ? f.originalResponseBody() : f.responseBody();
      }
      default -> throw ApiError.badRequest("side must be request or response, got \"" + side + "\"");
    }
    long offset = ControlApi.number(query, "offset", 0);
    if (offset < 0) {
      throw ApiError.badRequest("offset must be 0 or more");
    }
    long length = ControlApi.number(query, "length", MAX_SLICE);
    if (length < 0 || length > MAX_SLICE) {
      throw ApiError.badRequest("length must be 0.." + MAX_SLICE + " bytes, got " + length);
    }
    byte[] all = bytes(body);
    boolean truncated = body != null && body.truncated();
    byte[] shown = decoded && !truncated ? ContentCoding.decodeOrKeep(headers, all) : all;
    int from = (int) Math.min(offset, shown.length);
    int to = (int) Math.min(shown.length, from + length);
    byte[] slice = Arrays.copyOfRange(shown, from, to);

    ObjectNode o = ControlJson.object();
    o.put("flowId", f.id());
    o.put("side", side);
    o.put("contentType", headers.get("Content-Type"));
    o.put("contentEncoding", headers.get("Content-Encoding"));
    o.put("wireSize", body == null ? 0 : body.size());
    o.put("decoded", shown != all);
    o.put("size", shown.length);
    o.put("offset", from);
    o.put("length", slice.length);
    o.put("complete", body == null || body.isComplete());
    if (truncated) {
      o.put("truncated", true); // capture stopped at --body-cap without spilling: the rest is gone
    }
    String encoding = query.getOrDefault("encoding", "auto").toLowerCase(Locale.ROOT);
    switch (encoding) {
      case "auto" -> ControlJson.putBody(o, slice);
      case "text" -> o.put("body", new String(slice, StandardCharsets.UTF_8));
      case "base64" -> o.put("bodyBase64", Base64.getEncoder().encodeToString(slice));
      default -> throw ApiError.badRequest("encoding must be auto, text or base64, got \"" + encoding + "\"");
    }
    return o;
  }

  private static byte[] bytes(Body body) {
    if (body == null) {
      return new byte[0];
    }
    if (body.capturedSize() > ControlJson.MAX_BODY_SHOWN * 4) {
      throw ApiError.conflict("the body is " + body.capturedSize() + " bytes, more than this API reads into memory;"
          + " export the flow as HAR instead");
    }
    try (InputStream in = body.openStream()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new ApiError(500, "cannot read the captured body: " + e.getMessage());
    }
  }

  private static boolean flag(Map<String, String> query, String name, boolean dflt) {
    String v = query.get(name);
    if (v == null || v.isBlank()) {
      return dflt;
    }
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "true", "1", "yes" -> true;
      case "false", "0", "no" -> false;
      default -> throw ApiError.badRequest(name + " must be true or false, got \"" + v + "\"");
    };
  }
}
