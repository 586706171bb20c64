/**
 * The protocol-neutral record of traffic: {@link dev.loupe.engine.flow.Flow} and its parts, and the
 * {@link dev.loupe.engine.flow.FlowStore} that publishes flow events. The UI, the headless printer,
 * the HAR writer and plugins all read flows through this package only. Everything here is read-only
 * (flows, bodies, timings, what the store offers besides the user's own actions); the engine records
 * through its internal recorder ({@code internal.record}), which this package does not know.
 */
package dev.loupe.engine.flow;
