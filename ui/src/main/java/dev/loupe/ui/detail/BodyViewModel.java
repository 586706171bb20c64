package dev.loupe.ui.detail;

import dev.loupe.ui.common.FxThread;
import dev.loupe.ui.detail.JsonDocument.JsonTreeNode;
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
  /** Bumped by every load, mode change and clear; a result carrying an older number is dropped. */
  private long generation;
  private BodyInput input;
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
  }

  /** Shows {@code in}, keeping the chosen viewer. */
  public void load(BodyInput in) {
    long gen = ++generation;
    input = in;
    decoded = null;
    loading.set(true);
    ViewerMode requested = mode.get();
    background.submit(() -> {
      DecodedBody d;
      try {
        d = ContentDecoder.decode(in.source(), in.contentEncoding(), ContentDecoder.DEFAULT_LIMIT);
      } catch (IOException | RuntimeException e) {
        d = new DecodedBody(new byte[0], List.of(), false, "could not read the body: " + e.getMessage());
      }
      DecodedBody body = d;
      BodyRendering r = BodyRendering.render(in, body, requested);
      fx.post(() -> {
        if (gen == generation) {
          decoded = body;
          apply(r);
        }
      });
    });
  }

  /** Shows {@code in} with the viewer reset to {@link ViewerMode#AUTO}. */
  public void loadFresh(BodyInput in) {
    applyingMode = true;
    try {
      mode.set(ViewerMode.AUTO);
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
    loading.set(false);
    apply(new BodyRendering(ViewerMode.TEXT, ViewerMode.TEXT, "", List.of(), null, null, List.of(), List.of(), ""));
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
    loading.set(true);
    background.submit(() -> {
      BodyRendering r = BodyRendering.render(in, d, requested);
      fx.post(() -> {
        if (gen == generation) {
          apply(r);
        }
      });
    });
  }

  private void apply(BodyRendering r) {
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
