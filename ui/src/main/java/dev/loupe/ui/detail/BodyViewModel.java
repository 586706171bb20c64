package dev.loupe.ui.detail;

import dev.loupe.spi.ContentView;
import dev.loupe.ui.common.FxThread;
import dev.loupe.ui.body.JsonDocument.JsonTreeNode;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Executor;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import dev.loupe.ui.body.ContentType;
import dev.loupe.ui.body.ContentDecoder;
import dev.loupe.ui.body.DecodedBody;

/**
 * One body viewer's state: the chosen viewer ({@link #modeProperty()}, {@link ViewerMode#AUTO} by
 * default), and what it shows. {@link #load(BodyInput)} decodes and renders on the background
 * executor and applies the result on the UI thread; a newer load or mode change makes older
 * results stale (they are dropped), so a slow big body never overwrites a newer selection.
 *
 * <p>UI thread only, except the work handed to the executor.
 */
public final class BodyViewModel {
  private final FxThread fx;
  private final LatestOnly background;
  private final ObjectProperty<ViewerMode> mode = new SimpleObjectProperty<>(this, "mode", ViewerMode.AUTO);
  private final ReadOnlyObjectWrapper<ViewerMode> shown = new ReadOnlyObjectWrapper<>(this, "shown", ViewerMode.TEXT);
  private final ReadOnlyObjectWrapper<ViewerMode> auto = new ReadOnlyObjectWrapper<>(this, "auto", ViewerMode.TEXT);
  private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(this, "loading");
  private final ReadOnlyStringWrapper note = new ReadOnlyStringWrapper(this, "note", "");
  private final ReadOnlyStringWrapper text = new ReadOnlyStringWrapper(this, "text", "");
  private final ReadOnlyObjectWrapper<List<Span>> spans = new ReadOnlyObjectWrapper<>(this, "spans", List.of());
  private final ReadOnlyObjectWrapper<JsonTreeNode> tree = new ReadOnlyObjectWrapper<>(this, "tree");
  private final ReadOnlyObjectWrapper<byte[]> image = new ReadOnlyObjectWrapper<>(this, "image");
  private final ObservableList<FormUrlEncoded.Param> form = FXCollections.observableArrayList();
  private final ObservableList<Multipart.Part> parts = FXCollections.observableArrayList();
  private final ObjectProperty<ContentView> pluginView = new SimpleObjectProperty<>(this, "pluginView");
  private final ReadOnlyObjectWrapper<ContentView.View> pluginResult = new ReadOnlyObjectWrapper<>(this, "pluginResult");
  private final ObservableList<ViewerOption> choices = FXCollections.observableArrayList(builtIns());
  /** The plugin content views to offer (asked on each load, on the background thread). */
  private volatile java.util.function.Supplier<List<ContentView>> contentViews = List::of;
  /** Bumped by every load, mode change and clear; a result carrying an older number is dropped. */
  private long generation;
  private BodyInput input;
  /** The plugin views that accepted {@link #input} (UI thread). */
  private List<ContentView> offered = List.of();
  /** The decoded body of {@link #input}, once known (UI thread). */
  private DecodedBody decoded;
  private boolean applyingMode;

  public BodyViewModel(FxThread fx, Executor background) {
    this.fx = fx;
    this.background = new LatestOnly(background);
    mode.addListener((o, was, now) -> {
      if (!applyingMode && input != null) {
        rerender();
      }
    });
    pluginView.addListener((o, was, now) -> {
      if (!applyingMode && input != null) {
        rerender();
      }
    });
  }

  private static List<ViewerOption> builtIns() {
    return java.util.Arrays.stream(ViewerMode.values()).filter(m -> m != ViewerMode.PLUGIN).map(ViewerOption::of)
        .toList();
  }

  /** Where the plugin content views come from (the session's registry); none by default. */
  public void contentViews(java.util.function.Supplier<List<ContentView>> views) {
    this.contentViews = views;
  }

  /** Shows {@code in}, keeping the chosen viewer. */
  public void load(BodyInput in) {
    long gen = ++generation;
    input = in;
    decoded = null;
    loading.set(true);
    ViewerMode requested = mode.get();
    ContentView plugin = pluginView.get();
    java.util.function.Supplier<List<ContentView>> views = contentViews;
    background.submit(() -> {
      DecodedBody d;
      try {
        d = ContentDecoder.decode(in.source(), in.contentEncoding(), ContentDecoder.DEFAULT_LIMIT);
      } catch (IOException | RuntimeException e) {
        d = new DecodedBody(new byte[0], List.of(), false, "could not read the body: " + e.getMessage());
      }
      DecodedBody body = d;
      List<ContentView> accepting = PluginViews.accepting(views.get(), in.headers(), body.bytes());
      Rendered r = render(in, body, requested, plugin, accepting);
      fx.post(() -> {
        if (gen == generation) {
          decoded = body;
          offered = accepting;
          apply(r);
        }
      });
    });
  }

  /** A rendering and the plugin view's result (null unless a plugin view rendered it). */
  private record Rendered(BodyRendering rendering, ContentView.View view, List<ContentView> offered) {}

  private static Rendered render(BodyInput in, DecodedBody body, ViewerMode requested, ContentView plugin,
      List<ContentView> accepting) {
    if (plugin != null && accepting.contains(plugin)) {
      PluginViews.Rendered p = PluginViews.render(plugin, in, body);
      return new Rendered(p.rendering(), p.view(), accepting);
    }
    return new Rendered(BodyRendering.render(in, body, requested), null, accepting);
  }

  /** Shows {@code in} with the viewer reset to {@link ViewerMode#AUTO}. */
  public void loadFresh(BodyInput in) {
    applyingMode = true;
    try {
      mode.set(ViewerMode.AUTO);
      pluginView.set(null);
    } finally {
      applyingMode = false;
    }
    load(in);
  }

  /** Shows nothing. */
  public void clear() {
    generation++;
    input = null;
    decoded = null;
    offered = List.of();
    loading.set(false);
    apply(new Rendered(new BodyRendering(ViewerMode.TEXT, ViewerMode.TEXT, "", List.of(), null, null, List.of(),
        List.of(), ""), null, List.of()));
  }

  private void rerender() {
    DecodedBody d = decoded;
    if (d == null) {
      load(input); // still decoding: start over with the new mode
      return;
    }
    long gen = ++generation;
    BodyInput in = input;
    ViewerMode requested = mode.get();
    ContentView plugin = pluginView.get();
    List<ContentView> accepting = offered;
    loading.set(true);
    background.submit(() -> {
      Rendered r = render(in, d, requested, plugin, accepting);
      fx.post(() -> {
        if (gen == generation) {
          apply(r);
        }
      });
    });
  }

  private void apply(Rendered rendered) {
    BodyRendering r = rendered.rendering();
    List<ViewerOption> next = new java.util.ArrayList<>(builtIns());
    rendered.offered().forEach(v -> next.add(ViewerOption.of(v)));
    if (!next.equals(choices)) {
      choices.setAll(next);
    }
    pluginResult.set(rendered.view());
    shown.set(r.mode());
    auto.set(r.auto());
    note.set(r.note());
    spans.set(r.spans());
    text.set(r.text());
    tree.set(r.tree());
    image.set(r.image());
    form.setAll(r.form());
    parts.setAll(r.parts());
    loading.set(false);
  }

  /** The viewer the user picked; {@link ViewerMode#AUTO} follows the content type. */
  public ObjectProperty<ViewerMode> modeProperty() {
    return mode;
  }

  /**
   * The plugin content view the user picked (null: the built-in viewer of {@link #modeProperty()}).
   * A view that does not accept the next body shown falls back to the built-in choice.
   */
  public ObjectProperty<ContentView> pluginViewProperty() {
    return pluginView;
  }

  /** What the chooser offers: the built-in viewers, then the plugin views that accept this body. */
  public ObservableList<ViewerOption> choices() {
    return FXCollections.unmodifiableObservableList(choices);
  }

  /** The chooser's current entry. */
  public ViewerOption choice() {
    ContentView p = pluginView.get();
    return p != null && offered.contains(p) ? ViewerOption.of(p) : ViewerOption.of(mode.get());
  }

  /** Picks {@code option} (a built-in viewer, or a plugin view). */
  public void choose(ViewerOption option) {
    if (option == null) {
      return;
    }
    if (option.view() != null) {
      pluginView.set(option.view());
    } else {
      applyingMode = true;
      try {
        pluginView.set(null);
      } finally {
        applyingMode = false;
      }
      if (mode.get() == option.mode()) {
        rerenderIfShown();
      } else {
        mode.set(option.mode());
      }
    }
  }

  private void rerenderIfShown() {
    if (input != null) {
      rerender();
    }
  }

  /** What the plugin view made (text, tree or table), or null when no plugin view is shown. */
  public ReadOnlyObjectProperty<ContentView.View> pluginResultProperty() {
    return pluginResult.getReadOnlyProperty();
  }

  /** The viewer in use (never AUTO): what the view shows. */
  public ReadOnlyObjectProperty<ViewerMode> shownProperty() {
    return shown.getReadOnlyProperty();
  }

  /** The viewer the content type picks. */
  public ReadOnlyObjectProperty<ViewerMode> autoModeProperty() {
    return auto.getReadOnlyProperty();
  }

  /** True while decoding or rendering. */
  public ReadOnlyBooleanProperty loadingProperty() {
    return loading.getReadOnlyProperty();
  }

  /** Decoding, cuts and fallbacks ("decoded from gzip (1.2 KiB → 10 KiB)"), or empty. */
  public ReadOnlyStringProperty noteProperty() {
    return note.getReadOnlyProperty();
  }

  /** The text of the TEXT, JSON (pretty) and HEX viewers. Set after {@link #spansProperty()}. */
  public ReadOnlyStringProperty textProperty() {
    return text.getReadOnlyProperty();
  }

  /** Highlighting for {@link #textProperty()}. */
  public ReadOnlyObjectProperty<List<Span>> spansProperty() {
    return spans.getReadOnlyProperty();
  }

  /** The JSON tree's root, or null. */
  public ReadOnlyObjectProperty<JsonTreeNode> treeProperty() {
    return tree.getReadOnlyProperty();
  }

  /** The image bytes, or null. */
  public ReadOnlyObjectProperty<byte[]> imageProperty() {
    return image.getReadOnlyProperty();
  }

  public ObservableList<FormUrlEncoded.Param> formRows() {
    return FXCollections.unmodifiableObservableList(form);
  }

  public ObservableList<Multipart.Part> parts() {
    return FXCollections.unmodifiableObservableList(parts);
  }

  /** Bytes of a part the preview looks at (it runs on the UI thread when a part is selected). */
  static final int PART_PREVIEW_LIMIT = BodyRendering.TEXT_LIMIT;

  /**
   * A part's content as text (highlighted by its type; JSON pretty) or, when binary, as a hex dump,
   * from its first {@value #PART_PREVIEW_LIMIT} bytes.
   */
  public static BodyRendering partPreview(Multipart.Part part) {
    byte[] content = part.content();
    boolean cut = content.length > PART_PREVIEW_LIMIT;
    byte[] head = cut ? java.util.Arrays.copyOf(content, PART_PREVIEW_LIMIT) : content;
    BodyInput in = BodyInput.of(head, head.length, part.contentType());
    DecodedBody d = new DecodedBody(head, List.of(), cut, null);
    ViewerMode auto = ViewerChoice.of(ContentType.parse(part.contentType()), head).mode();
    ViewerMode m = auto == ViewerMode.JSON || auto == ViewerMode.TEXT || auto == ViewerMode.FORM ? auto : ViewerMode.HEX;
    return BodyRendering.render(in, d, m == ViewerMode.FORM ? ViewerMode.TEXT : m);
  }
}
