/**
 * The protocol-neutral record of traffic: {@link dev.loupe.engine.flow.Flow} and its parts, and the
 * {@link dev.loupe.engine.flow.FlowStore} that publishes flow events. The UI, the headless printer,
 * the HAR writer and plugins all read flows through this package only.
 */
package dev.loupe.engine.flow;
