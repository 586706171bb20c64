/**
 * The control API: a small local HTTP+JSON API for headless use ({@code --control HOST:PORT}), so
 * tests and scripts can list flows, set breakpoints and rules, resume, edit, abort or answer paused
 * flows, and replay or compose requests. It drives the same engine services as the desktop UI.
 *
 * <p>{@link dev.loupe.app.control.ControlServer} is the HTTP side (JDK {@code com.sun.net.httpserver},
 * bearer token, its own threads); {@link dev.loupe.app.control.ControlApi} the routes;
 * {@code ControlJson} the JSON shapes; {@link dev.loupe.app.control.ControlToken} the token and its
 * file; {@link dev.loupe.app.control.ControlEndpoint} the {@code control.json} that local clients
 * find it by; {@code ControlExports} ({@code /har}, {@code /ca}, {@code /flows/ID/body}) and
 * {@code ControlFlowJson} (timings, connections, WebSocket messages) further read-outs;
 * {@link dev.loupe.app.control.ControlChannel} the one way the MCP server and {@code loupe ctl} call
 * it (in process or over HTTP); {@link dev.loupe.app.control.RulesFile} reads {@code --rules FILE}.
 * The endpoints are documented in README.md ("Control API").
 */
package dev.loupe.app.control;
