/**
 * Connecting clients in one step: browsers started with a fresh profile that uses Loupe and trusts
 * its CA ({@link dev.loupe.app.connect.BrowserLauncher}), terminal setup for shells
 * ({@link dev.loupe.app.connect.TerminalSetup}), the setup page's downloads
 * ({@link dev.loupe.app.connect.CaDownloads}), remote access with generated proxy credentials
 * ({@link dev.loupe.app.connect.ProxyCredentials}), and the port the window drives them through.
 */
package dev.loupe.app.connect;
