/**
 * The interceptor chain: rules, plugins and breakpoints as one pipeline of interceptors on the
 * plugin SPI ({@link dev.loupe.engine.internal.intercept.InterceptorChain}), the plugin host and its
 * threads, and {@link dev.loupe.engine.internal.intercept.DefaultInterceptService}, the
 * implementation of {@code api.intercept.InterceptService} (registered as its {@code ServiceLoader}
 * factory). The client leg asks it about each request ({@code DefaultInterceptService#begin}).
 */
package dev.loupe.engine.internal.intercept;
