/**
 * The engine's composition root ({@link dev.loupe.engine.internal.bootstrap.EngineBootstrap}): makes
 * and wires the internal parts from an {@code EngineConfig}. The public {@code api.ProxyEngine}
 * reaches it as a {@code ServiceLoader} service ({@code api.EngineRuntime.Factory}), so {@code api}
 * imports nothing internal and no package cycle runs through the composition root.
 */
package dev.loupe.engine.internal.bootstrap;
