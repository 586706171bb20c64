package dev.loupe.ui.trust;

/** The encodings the CA certificate can be exported in. */
public enum ExportFormat {
  /** Base64 text ("-----BEGIN CERTIFICATE-----"): curl, Linux, most tools. */
  PEM("loupe-ca.pem", "*.pem", "*.crt"),
  /** Binary: Windows, Android, Java keytool. */
  DER("loupe-ca.cer", "*.cer", "*.der");

  private final String defaultFileName;
  private final String[] patterns;

  ExportFormat(String defaultFileName, String... patterns) {
    this.defaultFileName = defaultFileName;
    this.patterns = patterns;
  }

  /** The file name a save dialog suggests. */
  public String defaultFileName() {
    return defaultFileName;
  }

  /** File-name patterns for a save dialog's filter. */
  public String[] patterns() {
    return patterns.clone();
  }
}
