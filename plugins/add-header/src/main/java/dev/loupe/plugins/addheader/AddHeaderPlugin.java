package dev.loupe.plugins.addheader;

import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.filter.FilterSyntaxException;
import dev.loupe.spi.Plugin;
import dev.loupe.spi.PluginContext;
import dev.loupe.spi.RequestHook;
import java.util.concurrent.CompletionStage;

/**
 * Example plugin: sets a request header on the flows a filter matches, before they go to the
 * origin. Options ({@code --set add-header.KEY=VALUE} or settings.json):
 * <ul>
 *   <li>{@code header}: {@code "Name: value"} — the field to set (replacing any field of that name);
 *       without it the plugin does nothing and says so;
 *   <li>{@code filter}: which flows, in the filter language (default {@code ~all}: every request).
 * </ul>
 * Only the flows the filter can match take the full tier; every other flow stays on the relay tier.
 *
 * <p>Threads: Loupe calls every hook on this plugin's own thread, one at a time; the fields are
 * volatile because {@link #interceptFilter()} is read by the host after {@link #configure}.
 */
public final class AddHeaderPlugin implements Plugin {
  private volatile String filter;
  private volatile String name;
  private volatile String value;

  @Override
  public String name() {
    return "add-header";
  }

  @Override
  public String version() {
    String v = AddHeaderPlugin.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  @Override
  public void configure(PluginContext context) {
    String header = context.option("header", "").strip();
    if (header.isEmpty()) {
      filter = null;
      context.log("no header to add: set add-header.header=\"Name: value\" (and add-header.filter=FILTER)");
      return;
    }
    int colon = header.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("header: expected \"Name: value\", got \"" + header + "\"");
    }
    String n = header.substring(0, colon).strip();
    if (!n.chars().allMatch(AddHeaderPlugin::isTokenChar)) {
      throw new IllegalArgumentException("header: \"" + n + "\" is not a valid header name");
    }
    String v = header.substring(colon + 1).strip();
    if (v.chars().anyMatch(c -> c == '\r' || c == '\n' || c == 0)) {
      throw new IllegalArgumentException("header: the value may not contain CR, LF or NUL");
    }
    String f = context.option("filter", "~all");
    try {
      Filter.parse(f); // refused here, with the position, rather than later by the host
    } catch (FilterSyntaxException e) {
      throw new IllegalArgumentException("filter: " + e.getMessage(), e);
    }
    name = n;
    value = v;
    filter = f;
    context.log("sets \"" + n + ": " + v + "\" on requests matching " + f);
  }

  @Override
  public String interceptFilter() {
    return filter;
  }

  @Override
  public CompletionStage<?> request(RequestHook hook) {
    if (hook.editable() && name != null) {
      hook.setHeader(name, value);
    }
    return null;
  }

  /** RFC 9110 §5.6.2 tchar. */
  private static boolean isTokenChar(int c) {
    return c > 0x20 && c < 0x7F && "\"(),/:;<=>?@[\\]{}".indexOf(c) < 0;
  }
}
