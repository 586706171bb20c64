package dev.loupe.ui.diff;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

/**
 * A side-by-side comparison bound to a {@link DiffViewModel}: the two titles, then a Request and a
 * Response tab, each with the head lines, a header table (name, left value, right value; rows
 * marked added, removed or changed) and the body's line diff (line numbers and text of both sides,
 * changed lines highlighted) or, for binary bodies, their sizes and digests.
 *
 * <p>Styles come from {@code diff.css}, which this view adds itself (its colours are translucent,
 * so they read on the light and the dark theme). Row style classes: {@code diff-same},
 * {@code diff-changed}, {@code diff-removed}, {@code diff-added}. Node ids start with the given
 * prefix: {@code P-left-title}, {@code P-right-title}, {@code P-tabs}, {@code P-request-headers},
 * {@code P-request-body}, {@code P-request-note}, {@code P-request-summary}, {@code P-request-left-head}
 * (and the same for {@code response}).
 */
public final class DiffView {
  private final BorderPane root = new BorderPane();
  private final TabPane tabs = new TabPane();

  public DiffView(DiffViewModel vm, String id) {
    root.setId(id);
    root.getStyleClass().add("diff-view");
    root.getStylesheets().add(DiffView.class.getResource("/dev/loupe/ui/diff.css").toExternalForm());
    Label left = new Label();
    left.setId(id + "-left-title");
    left.textProperty().bind(vm.leftTitleProperty());
    Label right = new Label();
    right.setId(id + "-right-title");
    right.textProperty().bind(vm.rightTitleProperty());
    left.getStyleClass().add("diff-title");
    right.getStyleClass().add("diff-title");
    ProgressIndicator busy = new ProgressIndicator();
    busy.setPrefSize(16, 16);
    busy.visibleProperty().bind(vm.loadingProperty());
    GridPane titles = halves(left, right);
    HBox top = new HBox(6, busy, titles);
    HBox.setHgrow(titles, Priority.ALWAYS);
    top.getStyleClass().add("diff-titles");

    Tab request = new Tab("Request", new MessagePane(id + "-request", vm.requestProperty()).root);
    request.setId(id + "-tab-request");
    Tab response = new Tab("Response", new MessagePane(id + "-response", vm.responseProperty()).root);
    response.setId(id + "-tab-response");
    tabs.getTabs().addAll(request, response);
    tabs.setId(id + "-tabs");
    tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
    root.setTop(top);
    root.setCenter(tabs);
  }

  /** The view. */
  public Node node() {
    return root;
  }

  /** Selects the Request or Response tab. */
  public void select(String tabName) {
    tabs.getTabs().stream().filter(t -> t.getText().equals(tabName)).findFirst()
        .ifPresent(t -> tabs.getSelectionModel().select(t));
  }

  /** Two nodes in equal halves. */
  private static GridPane halves(Node a, Node b) {
    GridPane g = new GridPane();
    ColumnConstraints c = new ColumnConstraints();
    c.setPercentWidth(50);
    c.setHgrow(Priority.ALWAYS);
    g.getColumnConstraints().addAll(c, c);
    g.add(a, 0, 0);
    g.add(b, 1, 0);
    return g;
  }

  /** One message's comparison. */
  private static final class MessagePane {
    final VBox root = new VBox(4);

    MessagePane(String id, ReadOnlyObjectProperty<MessageDiff> diff) {
      Label summary = new Label();
      summary.setId(id + "-summary");
      summary.getStyleClass().add("diff-summary");
      Label leftHead = new Label();
      leftHead.setId(id + "-left-head");
      Label rightHead = new Label();
      rightHead.setId(id + "-right-head");
      for (Label l : List.of(leftHead, rightHead)) {
        l.getStyleClass().add("diff-head");
        l.setMaxWidth(Double.MAX_VALUE);
      }
      GridPane heads = halves(leftHead, rightHead);

      TableView<HeaderDiff.Row> headers = new TableView<>();
      headers.setId(id + "-headers");
      headers.getStyleClass().add("diff-table");
      headers.getColumns().add(column("", 24, r -> mark(r.kind())));
      headers.getColumns().add(column("Name", 200, HeaderDiff.Row::name));
      headers.getColumns().add(column("Left", 360, r -> r.left() == null ? "" : r.left()));
      headers.getColumns().add(column("Right", 360, r -> r.right() == null ? "" : r.right()));
      headers.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_ALL_COLUMNS);
      headers.setRowFactory(t -> styledRow(HeaderDiff.Row::kind));
      headers.setPlaceholder(new Label("No headers"));

      TableView<LineDiff.Row> body = new TableView<>();
      body.setId(id + "-body");
      body.getStyleClass().addAll("diff-table", "diff-lines");
      body.getColumns().add(column("#", 50, r -> r.leftNumber() == 0 ? "" : Integer.toString(r.leftNumber())));
      body.getColumns().add(lineColumn("Left", true));
      body.getColumns().add(column("#", 50, r -> r.rightNumber() == 0 ? "" : Integer.toString(r.rightNumber())));
      body.getColumns().add(lineColumn("Right", false));
      body.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_ALL_COLUMNS);
      body.setFixedCellSize(24);
      body.setRowFactory(t -> styledRow(LineDiff.Row::kind));
      Label bodyNote = new Label();
      bodyNote.setId(id + "-note");
      bodyNote.getStyleClass().add("diff-note");
      bodyNote.setWrapText(true);
      Label placeholder = new Label();
      placeholder.setWrapText(true);
      body.setPlaceholder(placeholder);
      BorderPane bodyPane = new BorderPane(body);
      bodyPane.setTop(bodyNote);

      SplitPane split = new SplitPane(headers, bodyPane);
      split.setOrientation(Orientation.VERTICAL);
      split.setDividerPositions(0.4);
      VBox.setVgrow(split, Priority.ALWAYS);
      root.getChildren().addAll(summary, heads, split);
      root.getStyleClass().add("diff-message");

      Runnable show = () -> {
        MessageDiff d = diff.get();
        leftHead.getStyleClass().removeAll("diff-changed");
        rightHead.getStyleClass().removeAll("diff-changed");
        if (d == null) {
          summary.setText("");
          leftHead.setText("");
          rightHead.setText("");
          headers.getItems().clear();
          body.getItems().clear();
          bodyNote.setText("");
          return;
        }
        summary.setText(d.summary());
        leftHead.setText(d.left().head());
        rightHead.setText(d.right().head());
        leftHead.setTooltip(new Tooltip(d.left().head()));
        rightHead.setTooltip(new Tooltip(d.right().head()));
        if (d.headChanged()) {
          leftHead.getStyleClass().add("diff-changed");
          rightHead.getStyleClass().add("diff-changed");
        }
        headers.getItems().setAll(d.headers());
        BodyComparison b = d.body();
        bodyNote.setText(b.text() ? b.note() : b.note() + "\nleft SHA-256  " + b.leftSha256()
            + "\nright SHA-256 " + b.rightSha256());
        body.getItems().setAll(b.text() ? b.lines().rows() : List.of());
        placeholder.setText(b.text() ? "No body on either side" : "Binary bodies are compared by size and SHA-256");
      };
      diff.addListener((o, was, now) -> show.run());
      show.run();
    }
  }

  static String mark(LineDiff.Kind k) {
    return switch (k) {
      case SAME -> "";
      case CHANGED -> "~";
      case REMOVED -> "−";
      case ADDED -> "+";
    };
  }

  private static <T> TableRow<T> styledRow(Function<T, LineDiff.Kind> kind) {
    return new TableRow<>() {
      @Override
      protected void updateItem(T item, boolean empty) {
        super.updateItem(item, empty);
        getStyleClass().removeAll("diff-same", "diff-changed", "diff-removed", "diff-added");
        if (!empty && item != null) {
          getStyleClass().add(styleClass(kind.apply(item)));
        }
      }
    };
  }

  /** {@code diff-changed} and so on. */
  public static String styleClass(LineDiff.Kind k) {
    return "diff-" + k.name().toLowerCase(Locale.ROOT);
  }

  /**
   * A line's text; in a changed row the part that differs from the other side (between their common
   * prefix and suffix) is emphasised ({@code diff-word}), and the tooltip shows the whole line.
   */
  private static TableColumn<LineDiff.Row, LineDiff.Row> lineColumn(String title, boolean left) {
    TableColumn<LineDiff.Row, LineDiff.Row> c = new TableColumn<>(title);
    c.setPrefWidth(420);
    c.setSortable(false);
    c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(cd.getValue()));
    c.setCellFactory(col -> new javafx.scene.control.TableCell<>() {
      @Override
      protected void updateItem(LineDiff.Row r, boolean empty) {
        super.updateItem(r, empty);
        String text = empty || r == null ? null : left ? r.left() : r.right();
        setTooltip(text == null || text.length() < 60 ? null : new Tooltip(text));
        if (text == null) {
          setText(null);
          setGraphic(null);
          return;
        }
        if (r.kind() != LineDiff.Kind.CHANGED) {
          setText(text);
          setGraphic(null);
          return;
        }
        int[] span = changedSpan(left ? r.left() : r.right(), left ? r.right() : r.left());
        javafx.scene.text.Text before = new javafx.scene.text.Text(text.substring(0, span[0]));
        javafx.scene.text.Text changed = new javafx.scene.text.Text(text.substring(span[0], span[1]));
        changed.getStyleClass().add("diff-word");
        javafx.scene.text.Text after = new javafx.scene.text.Text(text.substring(span[1]));
        for (javafx.scene.text.Text t : List.of(before, changed, after)) {
          t.getStyleClass().add("diff-text");
        }
        javafx.scene.text.TextFlow flow = new javafx.scene.text.TextFlow(before, changed, after);
        setText(null);
        setGraphic(flow);
      }
    });
    return c;
  }

  /** [start, end) of {@code mine} that differs from {@code other}: what is left after their common prefix and suffix. */
  static int[] changedSpan(String mine, String other) {
    int p = 0;
    int max = Math.min(mine.length(), other.length());
    while (p < max && mine.charAt(p) == other.charAt(p)) {
      p++;
    }
    int q = 0;
    while (q < max - p && mine.charAt(mine.length() - 1 - q) == other.charAt(other.length() - 1 - q)) {
      q++;
    }
    return new int[] {p, mine.length() - q};
  }

  private static <T> TableColumn<T, String> column(String title, double width, Function<T, String> f) {
    TableColumn<T, String> c = new TableColumn<>(title);
    c.setPrefWidth(width);
    c.setSortable(false);
    c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(f.apply(cd.getValue())));
    return c;
  }
}
