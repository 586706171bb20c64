package dev.loupe.ui.detail;

import dev.loupe.spi.ContentView;
import dev.loupe.ui.body.JsonDocument.JsonTreeNode;
import dev.loupe.ui.flows.FlowRow;
import java.io.ByteArrayInputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javafx.application.Platform;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.scene.image.Image;
import javafx.scene.image.ImageView;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.StackPane;

/**
 * A body viewer bound to a {@link BodyViewModel}: a chooser (Auto, Text, JSON, Hex, Image, Form,
 * Multipart), a note line (decoding, cuts), and the viewer in use: a code view (text, pretty JSON,
 * hex), the JSON tree beside the pretty text, an image, a form table, or the multipart parts with
 * the selected part's content. Node ids start with the given prefix ({@code response-body-text},
 * {@code response-body-tree}, {@code response-body-image}, ...).
 */
public final class BodyView {
  private final BorderPane root = new BorderPane();
  private final BodyViewModel vm;
  private final Executor imageDecoder;
  private final CodeView code;
  private final CodeView jsonText;
  private final TreeView<JsonTreeNode> tree = new TreeView<>();
  private final SplitPane json;
  private final ImageView imageView = new ImageView();
  private final StackPane imageHolder = new StackPane(imageView);
  private final ScrollPane image = new ScrollPane(imageHolder);
  private final Label imageInfo = new Label();
  private final TableView<FormUrlEncoded.Param> form = new TableView<>();
  private final TableView<Multipart.Part> parts = new TableView<>();
  private final CodeView partContent;
  private final SplitPane multipart;
  private final StackPane viewers = new StackPane();
  private final TreeView<ContentView.Node> pluginTree = new TreeView<>();
  private final TableView<List<String>> pluginTable = new TableView<>();
  private long imageGeneration;
  private boolean syncingChooser;

  public BodyView(BodyViewModel vm, String id, Executor imageDecoder) {
    this.vm = vm;
    this.imageDecoder = imageDecoder;
    root.setId(id);
    root.getStyleClass().add("body-view");
    code = new CodeView(id + "-text");
    jsonText = new CodeView(id + "-json");
    partContent = new CodeView(id + "-part");
    tree.setId(id + "-tree");
    tree.setShowRoot(true);
    json = new SplitPane(jsonText.node(), tree);
    json.setDividerPositions(0.55);
    imageView.setId(id + "-image");
    imageView.setPreserveRatio(true);
    imageHolder.getStyleClass().add("body-image");
    image.setFitToWidth(true);
    image.setFitToHeight(true);
    imageInfo.getStyleClass().add("image-info");
    form.setId(id + "-form");
    form.getColumns().add(column("Name", 220, FormUrlEncoded.Param::name));
    form.getColumns().add(column("Value", 520, FormUrlEncoded.Param::value));
    form.setItems(vm.formRows());
    parts.setId(id + "-parts");
    parts.getColumns().add(partColumn("Name", 160, p -> p.name() == null ? "" : p.name()));
    parts.getColumns().add(partColumn("File name", 200, p -> p.filename() == null ? "" : p.filename()));
    parts.getColumns().add(partColumn("Type", 180, p -> p.contentType() == null ? "" : p.contentType()));
    parts.getColumns().add(partColumn("Size", 90, p -> FlowRow.humanBytes(p.content().length)));
    parts.setItems(vm.parts());
    parts.getSelectionModel().selectedItemProperty().addListener((o, was, part) -> {
      if (part == null) {
        partContent.show("", List.of());
      } else {
        BodyRendering r = BodyViewModel.partPreview(part);
        partContent.show(r.text(), r.spans());
      }
    });
    multipart = new SplitPane(parts, partContent.node());
    multipart.setOrientation(Orientation.VERTICAL);
    multipart.setDividerPositions(0.4);
    pluginTree.setId(id + "-plugin-tree");
    pluginTree.setCellFactory(tv -> new javafx.scene.control.TreeCell<>() {
      @Override
      protected void updateItem(ContentView.Node item, boolean empty) {
        super.updateItem(item, empty);
        setText(empty || item == null ? null : item.label());
      }
    });
    pluginTable.setId(id + "-plugin-table");
    viewers.getChildren().addAll(code.node(), json, new BorderPane(image, null, null, imageInfo, null), form, multipart,
        pluginTree, pluginTable);

    // The chooser offers the built-in viewers and the plugin views that accept this body.
    ChoiceBox<ViewerOption> chooser = new ChoiceBox<>(vm.choices());
    chooser.setId(id + "-mode");
    Runnable showChoice = () -> {
      syncingChooser = true;
      try {
        chooser.setValue(vm.choice());
      } finally {
        syncingChooser = false;
      }
    };
    chooser.valueProperty().addListener((o, was, now) -> {
      if (!syncingChooser && now != null) {
        vm.choose(now);
      }
    });
    vm.modeProperty().addListener((o, was, now) -> showChoice.run());
    vm.pluginViewProperty().addListener((o, was, now) -> showChoice.run());
    vm.choices().addListener((javafx.collections.ListChangeListener<ViewerOption>) c -> showChoice.run());
    showChoice.run();
    Label note = new Label();
    note.setId(id + "-note");
    note.getStyleClass().add("body-note");
    note.textProperty().bind(vm.noteProperty());
    ProgressIndicator busy = new ProgressIndicator();
    busy.setPrefSize(16, 16);
    busy.visibleProperty().bind(vm.loadingProperty());
    HBox bar = new HBox(8, chooser, busy, note);
    bar.getStyleClass().add("body-bar");
    HBox.setHgrow(note, Priority.ALWAYS);
    root.setTop(bar);
    root.setCenter(viewers);

    vm.textProperty().addListener((o, was, now) -> showText());
    vm.shownProperty().addListener((o, was, now) -> showViewer());
    vm.treeProperty().addListener((o, was, now) -> showTree(now));
    vm.imageProperty().addListener((o, was, now) -> showImage(now));
    vm.pluginResultProperty().addListener((o, was, now) -> {
      showPlugin(now);
      showViewer();
    });
    showViewer();
    showText();
    showTree(vm.treeProperty().get());
    showImage(vm.imageProperty().get());
  }

  public Node node() {
    return root;
  }

  private void showText() {
    CodeView target = vm.shownProperty().get() == ViewerMode.JSON ? jsonText : code;
    target.show(vm.textProperty().get(), vm.spansProperty().get());
  }

  private void showViewer() {
    ViewerMode m = vm.shownProperty().get();
    ContentView.View plugin = vm.pluginResultProperty().get();
    Node visible = switch (m) {
      case JSON -> json;
      case IMAGE -> viewers.getChildren().get(2);
      case FORM -> form;
      case MULTIPART -> multipart;
      case PLUGIN -> plugin instanceof ContentView.Tree ? pluginTree
          : plugin instanceof ContentView.Table ? pluginTable : code.node();
      default -> code.node();
    };
    for (Node n : viewers.getChildren()) {
      n.setVisible(n == visible);
    }
  }

  /** A plugin view's tree (expanded two levels) or table. */
  private void showPlugin(ContentView.View v) {
    pluginTree.setRoot(null);
    pluginTable.getColumns().clear();
    pluginTable.getItems().clear();
    if (v instanceof ContentView.Tree t) {
      TreeItem<ContentView.Node> rootItem = item(t.root(), 0);
      pluginTree.setRoot(rootItem);
      pluginTree.setShowRoot(true);
    } else if (v instanceof ContentView.Table t) {
      for (int i = 0; i < t.columns().size(); i++) {
        int col = i;
        TableColumn<List<String>, String> c = new TableColumn<>(t.columns().get(i));
        c.setPrefWidth(Math.max(80, 700.0 / Math.max(1, t.columns().size())));
        c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(col < cd.getValue().size() ? cd.getValue().get(col) : ""));
        pluginTable.getColumns().add(c);
      }
      pluginTable.getItems().setAll(t.rows());
    }
  }

  private static TreeItem<ContentView.Node> item(ContentView.Node n, int depth) {
    TreeItem<ContentView.Node> it = new TreeItem<>(n);
    it.setExpanded(depth < 2);
    for (ContentView.Node c : n.children()) {
      it.getChildren().add(item(c, depth + 1));
    }
    return it;
  }

  private void showTree(JsonTreeNode node) {
    if (node == null) {
      tree.setRoot(null);
      return;
    }
    JsonItem rootItem = new JsonItem(node);
    rootItem.setExpanded(true);
    tree.setRoot(rootItem);
  }

  /** Decodes the image off the UI thread (a large JPEG takes a while). */
  private void showImage(byte[] bytes) {
    long gen = ++imageGeneration;
    imageView.setImage(null);
    imageInfo.setText("");
    if (bytes == null) {
      return;
    }
    CompletableFuture.supplyAsync(() -> new Image(new ByteArrayInputStream(bytes)), imageDecoder)
        .thenAcceptAsync(img -> {
          if (gen != imageGeneration) {
            return;
          }
          if (img.isError() || img.getWidth() <= 0) {
            imageInfo.setText("Not an image JavaFX can show"
                + (img.getException() == null ? "" : ": " + img.getException().getMessage()));
            return;
          }
          imageView.setImage(img);
          imageInfo.setText((int) img.getWidth() + " × " + (int) img.getHeight() + " px");
        }, Platform::runLater);
  }

  /** A tree item whose children are made when first asked for (a big array costs nothing until opened). */
  private static final class JsonItem extends TreeItem<JsonTreeNode> {
    private boolean loaded;

    JsonItem(JsonTreeNode node) {
      super(node);
    }

    @Override
    public boolean isLeaf() {
      return !getValue().isContainer() || getValue().childCount() == 0;
    }

    @Override
    public javafx.collections.ObservableList<TreeItem<JsonTreeNode>> getChildren() {
      if (!loaded) {
        loaded = true;
        List<JsonItem> kids = getValue().children().stream().map(JsonItem::new).toList();
        super.getChildren().setAll(kids);
      }
      return super.getChildren();
    }
  }

  private static <T> TableColumn<T, String> column(String name, double width, java.util.function.Function<T, String> f) {
    TableColumn<T, String> c = new TableColumn<>(name);
    c.setPrefWidth(width);
    c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(f.apply(cd.getValue())));
    return c;
  }

  private static TableColumn<Multipart.Part, String> partColumn(String name, double width,
      java.util.function.Function<Multipart.Part, String> f) {
    return column(name, width, f);
  }
}
