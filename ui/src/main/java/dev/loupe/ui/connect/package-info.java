/**
 * Connecting clients from the window: the toolbar's "Open browser" and "Terminal" menus and the
 * "Remote devices" window (LAN access, proxy credentials, QR code for a phone). Views here are
 * thin; {@link dev.loupe.ui.connect.ConnectViewModel} and {@link dev.loupe.ui.connect.RemoteDevicesViewModel}
 * hold the logic and are tested without a display; {@link dev.loupe.ui.connect.ConnectPort} is what
 * the app implements.
 */
package dev.loupe.ui.connect;
