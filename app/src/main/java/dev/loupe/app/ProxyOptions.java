package dev.loupe.app;

import dev.loupe.app.LoupeCommand.UsageError;
import dev.loupe.ca.KeyAlgorithm;
import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.ListenAddress;
import dev.loupe.engine.api.util.ByteSizes;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The proxy's options from the command line, checked before anything starts: a bad value is a
 * {@link UsageError} (exit 2, one line naming the option), in the order the checks always ran.
 *
 * @param address         {@code --listen}
 * @param bodyCap         {@code --body-cap} in bytes
 * @param caKey           {@code --ca-key}: the key type of a new CA
 * @param upstream        {@code --upstream-protocol}
 * @param strategy        {@code --connect-strategy}
 * @param upstreamProxy   {@code --upstream-proxy}, or null
 * @param reverse         {@code --mode reverse:URL}, or null in regular mode
 * @param userCertificate {@code --cert} and {@code --key}, or null
 * @param ignore          {@code --ignore-hosts} as one pattern, or null
 * @param extraCas        the certificates of {@code --trust-ca}
 */
record ProxyOptions(InetSocketAddress address, long bodyCap, KeyAlgorithm caKey, EngineConfig.UpstreamProtocol upstream,
    EngineConfig.ConnectStrategy strategy, EngineConfig.UpstreamProxy upstreamProxy, EngineConfig.Reverse reverse,
    UserCertificate userCertificate, Pattern ignore, List<X509Certificate> extraCas) {

  /** Checks {@code c}'s proxy options (after the window's saved settings filled in those not given). */
  static ProxyOptions check(LoupeCommand c) {
    if (c.keepFlows != null && c.keepFlows < 1) {
      throw new UsageError("--keep-flows: expected at least 1, got " + c.keepFlows);
    }
    InetSocketAddress address;
    try {
      address = ListenAddress.parse(c.listen);
    } catch (IllegalArgumentException e) {
      throw new UsageError("--listen: " + e.getMessage());
    }
    if (!address.getAddress().isLoopbackAddress() && !c.allowRemote) {
      throw new UsageError("--listen " + c.listen + " is not a loopback address; add --allow-remote to listen on it"
          + " (anyone who can reach it can then use the proxy)");
    }
    long cap;
    try {
      cap = ByteSizes.parse(c.bodyCap);
    } catch (IllegalArgumentException e) {
      throw new UsageError("--body-cap: " + e.getMessage());
    }
    if (cap > Integer.MAX_VALUE - 16) {
      throw new UsageError("--body-cap: at most 2GiB");
    }
    KeyAlgorithm algorithm = switch (c.caKey.toLowerCase(Locale.ROOT)) {
      case "ec", "ecdsa" -> KeyAlgorithm.EC_P256;
      case "rsa" -> KeyAlgorithm.RSA_2048;
      default -> throw new UsageError("--ca-key: expected ec or rsa, got '" + c.caKey + "'");
    };
    if (c.connectTimeoutSeconds <= 0) {
      throw new UsageError("--connect-timeout: must be a positive number of seconds");
    }
    EngineConfig.UpstreamProtocol upstream = switch (c.upstreamProtocol.toLowerCase(Locale.ROOT)) {
      case "auto" -> EngineConfig.UpstreamProtocol.AUTO;
      case "h1", "http/1.1", "http1" -> EngineConfig.UpstreamProtocol.H1;
      case "h2", "http/2", "http2" -> EngineConfig.UpstreamProtocol.H2;
      case "h3", "http/3", "http3" -> EngineConfig.UpstreamProtocol.H3;
      default -> throw new UsageError("--upstream-protocol: expected auto, h1, h2 or h3, got '" + c.upstreamProtocol
          + "'");
    };
    EngineConfig.ConnectStrategy strategy = switch (c.connectStrategy.toLowerCase(Locale.ROOT)) {
      case "eager" -> EngineConfig.ConnectStrategy.EAGER;
      case "lazy" -> EngineConfig.ConnectStrategy.LAZY;
      default -> throw new UsageError("--connect-strategy: expected eager or lazy, got '" + c.connectStrategy + "'");
    };
    EngineConfig.UpstreamProxy viaProxy = null;
    if (c.upstreamProxy != null && !c.upstreamProxy.isBlank()) {
      try {
        viaProxy = EngineConfig.UpstreamProxy.parse(c.upstreamProxy);
      } catch (IllegalArgumentException e) {
        throw new UsageError("--upstream-proxy: " + e.getMessage());
      }
    }
    if (viaProxy != null && upstream == EngineConfig.UpstreamProtocol.H3) {
      throw new UsageError("--upstream-proxy: HTTP/3 to origins (QUIC, over UDP) cannot go through an HTTP proxy;"
          + " drop --upstream-protocol h3 or the upstream proxy");
    }
    EngineConfig.Reverse reverse = null;
    if (c.mode.startsWith("reverse:")) {
      try {
        reverse = EngineConfig.Reverse.parse(c.mode.substring("reverse:".length()));
      } catch (IllegalArgumentException e) {
        throw new UsageError("--mode: " + e.getMessage());
      }
    } else if (!c.mode.equals("regular")) {
      throw new UsageError("--mode: expected regular or reverse:URL, got '" + c.mode + "'");
    }
    if ((c.cert == null) != (c.key == null)) {
      throw new UsageError("--cert and --key go together");
    }
    if (c.cert != null && reverse == null) {
      throw new UsageError("--cert/--key are for reverse mode (regular mode mints certificates with the Loupe CA)");
    }
    UserCertificate userCertificate = c.cert == null ? null : UserCertificate.load(c.cert, c.key);
    Pattern ignore;
    try {
      ignore = LoupeCommand.ignorePattern(c.ignoreHosts);
    } catch (PatternSyntaxException e) {
      throw new UsageError("--ignore-hosts: invalid regex: " + e.getDescription());
    }
    List<X509Certificate> extraCas = new ArrayList<>();
    for (Path p : c.trustCa) {
      extraCas.addAll(UserCertificate.readCertificates(p));
    }
    if (c.har != null) {
      Path parent = c.har.toAbsolutePath().getParent();
      if (parent != null && !Files.isDirectory(parent)) {
        throw new UsageError("--har: directory does not exist: " + parent);
      }
    }
    return new ProxyOptions(address, cap, algorithm, upstream, strategy, viaProxy, reverse, userCertificate, ignore,
        List.copyOf(extraCas));
  }
}
