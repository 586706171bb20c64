/**
 * Installs Loupe's CA certificate in the trust stores of this machine, and removes it again: NSS
 * databases (Chromium's {@code ~/.pki/nssdb}, each Firefox profile), the system store (Debian
 * {@code update-ca-certificates}, Fedora {@code update-ca-trust}), the macOS login keychain and
 * the Windows user Root store.
 *
 * <p>Entry point: {@link dev.loupe.ca.trust.TrustStores#forThisMachine(CaCertificate)}, which
 * returns one {@link dev.loupe.ca.trust.TrustStore} per place the CA can be trusted. Every store
 * reports its {@link dev.loupe.ca.trust.TrustStatus} from a real query (never from memory of
 * what was done), and every action returns a {@link dev.loupe.ca.trust.TrustResult} carrying the
 * tool's output verbatim.
 *
 * <p>All tools run through a {@link dev.loupe.ca.trust.CommandRunner}, with stdin closed and
 * password files where a tool could ask for one: nothing here ever waits for a terminal. The
 * calls block (a {@code certutil} run takes tens of milliseconds, {@code update-ca-certificates}
 * seconds): call them off UI threads. Parameters and return values are never null.
 */
package dev.loupe.ca.trust;
