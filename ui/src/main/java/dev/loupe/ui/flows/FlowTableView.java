package dev.loupe.ui.flows;

import dev.loupe.engine.api.session.model.SortKey;
import dev.loupe.ui.common.StyleClasses;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import javafx.application.Platform;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Orientation;
import javafx.scene.control.IndexedCell;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.Skin;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.skin.TableViewSkin;
import javafx.scene.control.skin.VirtualFlow;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.ScrollEvent;

/**
 * The live flow table: a virtualized {@link TableView} over the view model's visible rows, sortable
 * by any column (arrival order otherwise; the view model sorts), with a column chooser, and row
 * colours for errors and flows in flight ({@code flow-error}, {@code flow-in-flight} style classes); a flow paused at a
 * breakpoint gets {@code flow-paused} and "paused" in its Status column.
 *
 * <h3>A window over the rows</h3>
 * The {@code TableView} holds at most {@link #WINDOW} rows of the visible rows ({@link RowWindow}): JavaFX's
 * virtual flow costs time in proportion to its item count on every scroll and layout, tens of milliseconds with a
 * million rows. While the visible rows fit, the window is all of them and nothing differs from a plain table. Beyond,
 * a scroll bar over all the rows ({@code #flow-scroll}) lies on the table's own, and the window moves when the user
 * scrolls near its edge, drags that bar, or {@link #scrollToRow}; Home and End go to the first and last of all rows.
 * Selected rows a move takes out of the window stay selected ({@link #selectedRows()}, {@link #selectedRowProperty()})
 * and are selected in the table again when the window comes back over them; selecting another row lets them go.
 * {@link #getItems()} is the window; {@link #rowCount()} counts all the rows.
 */
public final class FlowTableView extends TableView<FlowRow> {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());
  /** Rows the {@code TableView} holds at most. */
  public static final int WINDOW = 8192;
  private static final double ROW_HEIGHT = 24;

  private final RowWindow window;
  /** Rows within this distance of a window edge move the window (when there are rows beyond that edge). */
  private final int margin;
  private final ScrollBar allRows = new ScrollBar();
  private final ReadOnlyObjectWrapper<FlowRow> selectedRow = new ReadOnlyObjectWrapper<>(this, "selectedRow");
  /** Selected rows a window move took out of the window, in selection order. */
  private final List<FlowRow> parked = new ArrayList<>();
  /** True while the window moves: the selection model's changes are the move's, not the user's. */
  private boolean moving;
  /** True while {@link #allRows} is set from the table's position, not by the user. */
  private boolean syncing;
  /** The row to show at the top at the next pulse (-1: none), and how far into it: one window move per frame. */
  private int pendingRow = -1;
  private double pendingPixels;
  private final Runnable applyPending = this::applyPending;
  private WindowSkin skin;

  public FlowTableView(FlowListViewModel vm) {
    this(vm, WINDOW);
  }

  /** {@code windowRows}: rows the {@code TableView} holds at most (tests make it small). */
  FlowTableView(FlowListViewModel vm, int windowRows) {
    window = new RowWindow(vm.visibleList(), windowRows);
    margin = Math.max(1, windowRows / 4);
    // The rows are ids in the view model, read when shown: sorting is the view model's (the store
    // sorts a million flows by its indexes), never a copy of the rows sorted here.
    setItems(window);
    // An update of rows the table holds must not lose the selection (nothing selected: nothing to keep)
    window.reportUpdatesThrough(change -> {
      if (getSelectionModel().isEmpty()) {
        change.run();
      } else {
        keepingSelection(change, false);
      }
    });
    setSortPolicy(t -> {
      TableColumn<FlowRow, ?> first = getSortOrder().isEmpty() ? null : getSortOrder().get(0);
      SortKey key = first == null ? null : sortKey(first.getId());
      if (first != null && key == null) {
        return false; // a column that does not sort
      }
      vm.sort(key == null ? SortKey.ID : key, first != null && first.getSortType() == TableColumn.SortType.DESCENDING);
      return true;
    });
    setId("flow-table");
    setTableMenuButtonVisible(true); // the column chooser
    setColumnResizePolicy(TableView.UNCONSTRAINED_RESIZE_POLICY);
    // One row height for all rows: the virtual flow then never measures cells, which made
    // every batch of new rows re-measure (and re-style) the visible cells.
    setFixedCellSize(ROW_HEIGHT);
    getColumns().addAll(
        column("#", 60, FlowRow::id),
        text("Time", 100, r -> TIME.format(r.time())),
        text("Method", 70, FlowRow::method),
        text("Host", 200, FlowRow::host),
        text("Path", 320, FlowRow::path),
        statusColumn(),
        text("Type", 140, FlowRow::contentType),
        sizeColumn(),
        text("Duration", 80, r -> r.durationMs() < 0 ? "" : String.format(Locale.ROOT, "%.0f ms", r.durationMs())),
        text("Proto", 70, r -> r.clientProto() + "/" + r.serverProto()),
        text("Tier", 60, r -> r.tier().name().toLowerCase(Locale.ROOT)));
    // Which launched browser or terminal sent it, from the row's columns (reading it from the flow
    // loaded every shown stored flow whole, on the UI thread). Next to the time, seen without scrolling.
    getColumns().add(2, text("Client", 80, FlowRow::client));
    setRowFactory(t -> new TableRow<>() {
      @Override
      protected void updateItem(FlowRow row, boolean empty) {
        super.updateItem(row, empty);
        String wanted = empty || row == null ? null
            : row.paused() != null ? "flow-paused" : row.error() ? "flow-error" : row.durationMs() < 0 ? "flow-in-flight" : null;
        StyleClasses.choose(this, wanted, "flow-error", "flow-in-flight", "flow-paused");
      }
    });

    allRows.setId("flow-scroll");
    allRows.setOrientation(Orientation.VERTICAL);
    allRows.setManaged(false);
    allRows.setVisible(false);
    allRows.valueProperty().addListener((o, was, now) -> {
      if (!syncing) {
        double v = now.doubleValue();
        showTop((int) v, (v - (int) v) * ROW_HEIGHT);
      }
    });
    allRows.addEventHandler(ScrollEvent.SCROLL, e -> { // the wheel over the bar scrolls the rows, as over the table's
      if (skin != null) {
        skin.flow().scrollPixels(-e.getDeltaY());
      }
      e.consume();
    });
    addEventFilter(KeyEvent.KEY_PRESSED, e -> { // the first and last of all rows, not of the window
      if (e.getCode() == KeyCode.HOME && window.start() > 0) {
        moveWindow(0);
      } else if (e.getCode() == KeyCode.END && window.start() + window.size() < window.total()) {
        moveWindow(window.total());
      }
    });
    // rows arriving beyond a full window change nothing the table shows, but the bar spans them all
    vm.visibleList().addListener((javafx.collections.ListChangeListener<FlowRow>) c -> {
      if (allRows.isVisible()) {
        syncing = true;
        try {
          allRows.setMax(Math.max(0, window.total() - pageRows()));
        } finally {
          syncing = false;
        }
      }
    });
    sceneProperty().addListener((o, was, now) -> {
      if (was != null) {
        was.removePreLayoutPulseListener(applyPending);
      }
      if (now != null) {
        now.addPreLayoutPulseListener(applyPending);
      }
    });
    getSelectionModel().selectedItemProperty().addListener((o, was, now) -> {
      if (moving) {
        return;
      }
      FlowRow lead = selectedRow.get();
      if (now == null || (lead != null && lead.id() != now.id())) {
        parked.clear(); // the user chose other rows (or the rows were replaced: a new filter or order)
      }
      selectedRow.set(now);
    });
  }

  /** How many rows the table shows in all (the visible rows; {@link #getItems()} is the window of them it holds). */
  public int rowCount() {
    return window.total();
  }

  /**
   * Scrolls row {@code index} of all the visible rows to the top, moving the window there if needed: at the next
   * pulse, where only the last of several requests is carried out.
   */
  public void scrollToRow(int index) {
    showTop(index, 0);
  }

  /** The row selected last (also when a window move took it out of the table's selection), or null. */
  public ReadOnlyObjectProperty<FlowRow> selectedRowProperty() {
    return selectedRow.getReadOnlyProperty();
  }

  /** The selected rows: those in the window and those a window move took out of it. */
  public List<FlowRow> selectedRows() {
    List<FlowRow> out = new ArrayList<>(parked);
    out.addAll(getSelectionModel().getSelectedItems());
    return Collections.unmodifiableList(out);
  }

  /** Where the window starts among all rows (tests). */
  int windowStart() {
    return window.start();
  }

  /** The first row on screen, among all rows, or -1 (tests). */
  int firstShownRow() {
    IndexedCell<?> first = skin == null ? null : skin.flow().getFirstVisibleCell();
    return first == null || first.getIndex() < 0 ? -1 : window.start() + first.getIndex();
  }

  @Override
  protected Skin<?> createDefaultSkin() {
    skin = new WindowSkin(this);
    return skin;
  }

  /** Rows the viewport shows (at least one). */
  private int pageRows() {
    return skin == null ? 1 : Math.max(1, (int) (skin.flow().getHeight() / ROW_HEIGHT));
  }

  /**
   * Shows row {@code row} of all rows at the top, {@code pixels} scrolled into it, before the next layout: a drag of
   * the bar (or a burst of requests while the UI thread was busy) then costs one window move and one layout per frame.
   */
  private void showTop(int row, double pixels) {
    if (getScene() == null || skin == null) {
      scrollNow(row, pixels);
      return;
    }
    pendingRow = Math.max(0, row);
    pendingPixels = pixels;
    Platform.requestNextPulse();
  }

  private void applyPending() {
    if (pendingRow >= 0) {
      int row = pendingRow;
      pendingRow = -1;
      scrollNow(row, pendingPixels);
    }
  }

  private void scrollNow(int row, double pixels) {
    int total = window.total();
    if (total == 0) {
      return;
    }
    row = Math.max(0, Math.min(row, total - 1));
    int page = pageRows();
    int s = window.start();
    int end = s + window.size();
    boolean inside = row >= s + (s > 0 ? margin : 0) && row + page <= end - (end < total ? margin : 0);
    if (!inside) {
      moveWindow(row + page / 2 - window.capacity() / 2);
    }
    int at = row - window.start();
    if (skin == null) {
      scrollTo(at);
      return;
    }
    skin.flow().scrollToTop(at);
    if (pixels > 0) {
      skin.flow().scrollPixels(pixels);
    }
  }

  /** Moves the window to start at {@code first} (clamped), keeping the selection (see the class doc). */
  private void moveWindow(int first) {
    keepingSelection(() -> window.moveTo(first), true);
  }

  /**
   * Runs a window {@code change} and selects again the rows that were selected (by id), the lead last. Selected rows
   * the change takes out of the window are parked if {@code park} (a move: they are still among all the rows), else
   * let go (they were removed); rows parked before stay parked.
   */
  private void keepingSelection(Runnable change, boolean park) {
    List<FlowRow> selected = new ArrayList<>(getSelectionModel().getSelectedItems());
    if (park) {
      selected.addAll(0, parked);
    }
    FlowRow lead = selectedRow.get();
    moving = true;
    try {
      change.run();
      if (park) {
        parked.clear();
      }
      if (selected.isEmpty()) {
        return;
      }
      Map<Long, Integer> at = new HashMap<>();
      for (FlowRow r : selected) {
        at.put(r.id(), -1);
      }
      for (int i = 0; i < window.size(); i++) {
        at.replace(window.idAt(i), i);
      }
      getSelectionModel().clearSelection();
      int leadAt = -1;
      for (FlowRow r : selected) {
        int i = at.get(r.id());
        if (i < 0) {
          if (park && !parked.contains(r)) {
            parked.add(r);
          }
        } else if (lead != null && r.id() == lead.id()) {
          leadAt = i;
        } else {
          getSelectionModel().select(i);
        }
      }
      if (leadAt >= 0) {
        getSelectionModel().select(leadAt); // last, so it is the selected item again
      }
    } finally {
      moving = false;
    }
    FlowRow now = getSelectionModel().getSelectedItem();
    if (now != null && lead != null && now.id() == lead.id()) {
      selectedRow.set(now); // the same flow, perhaps a newer row of it
    } else if (!park && lead != null && (now == null || now.id() != lead.id()) && !parked.contains(lead)) {
      selectedRow.set(now); // the lead row was removed
    }
  }

  /**
   * After each layout of the flow (its cells placed: the table's own layout comes before and sees old ones): the bar
   * over all rows follows the table; near a window edge, the window moves.
   */
  private void laidOut() {
    VirtualFlow<TableRow<FlowRow>> flow = skin.flow();
    ScrollBar own = skin.flow().vbar();
    boolean windowed = window.total() > window.size();
    allRows.setVisible(windowed && own.isVisible());
    own.setOpacity(windowed ? 0 : 1);
    own.setMouseTransparent(windowed);
    if (!windowed) {
      return;
    }
    allRows.resizeRelocate(flow.getLayoutX() + own.getLayoutX(), flow.getLayoutY() + own.getLayoutY(),
        own.getWidth(), own.getHeight());
    IndexedCell<?> first = flow.getFirstVisibleCell();
    if (first == null || first.getIndex() < 0) {
      return;
    }
    int page = pageRows();
    double top = window.start() + first.getIndex() + Math.max(0, -first.getLayoutY()) / ROW_HEIGHT;
    syncing = true;
    try {
      allRows.setMax(Math.max(0, window.total() - page));
      allRows.setVisibleAmount(page);
      allRows.setBlockIncrement(page);
      allRows.setUnitIncrement(1);
      allRows.setValue(Math.min(top, allRows.getMax()));
    } finally {
      syncing = false;
    }
    int s = window.start();
    boolean nearTop = s > 0 && first.getIndex() < margin;
    boolean nearEnd = s + window.size() < window.total() && first.getIndex() + page > window.size() - margin;
    if ((nearTop || nearEnd) && pendingRow < 0) { // before the next layout, not during this one
      showTop(s + first.getIndex(), Math.max(0, -first.getLayoutY())); // the same rows, the window around them
    }
  }

  /**
   * The table's skin, with a virtual flow that lets its scroll bar be found and says when it laid out (scrolling lays
   * out the flow alone, not the table).
   */
  private final class WindowSkin extends TableViewSkin<FlowRow> {
    WindowSkin(FlowTableView table) {
      super(table);
      getChildren().add(allRows);
      flow().laidOut = FlowTableView.this::laidOut;
    }

    Flow flow() {
      return (Flow) getVirtualFlow();
    }

    @Override
    protected VirtualFlow<TableRow<FlowRow>> createVirtualFlow() {
      return new Flow();
    }
  }

  private static final class Flow extends VirtualFlow<TableRow<FlowRow>> {
    Runnable laidOut = () -> { };

    ScrollBar vbar() {
      return getVbar();
    }

    @Override
    protected void layoutChildren() {
      super.layoutChildren();
      laidOut.run();
    }
  }

  /** What a column sorts by, or null for a column that does not sort. */
  static SortKey sortKey(String columnId) {
    return switch (columnId == null ? "" : columnId) {
      case "col-n" -> SortKey.ID;
      case "col-time" -> SortKey.TIME;
      case "col-method" -> SortKey.METHOD;
      case "col-host" -> SortKey.HOST;
      case "col-path" -> SortKey.PATH;
      case "col-status" -> SortKey.STATUS;
      case "col-type" -> SortKey.TYPE;
      case "col-size" -> SortKey.SIZE;
      case "col-duration" -> SortKey.DURATION;
      case "col-proto" -> SortKey.PROTOCOL;
      case "col-tier" -> SortKey.TIER;
      default -> null;
    };
  }

  /** The status code, coloured for 4xx/5xx ({@code status-4xx}, {@code status-5xx}); ERR or … without one. */
  private static TableColumn<FlowRow, FlowRow> statusColumn() {
    TableColumn<FlowRow, FlowRow> c = column("Status", 60, r -> r);
    c.setComparator(java.util.Comparator.comparingInt(FlowRow::status));
    c.setCellFactory(col -> new FlowCells.StatusCell());
    return c;
  }

  /** Sorts by bytes, shows them as 335 B, 12.4 KiB, 18.5 MiB. */
  private static TableColumn<FlowRow, Long> sizeColumn() {
    TableColumn<FlowRow, Long> c = column("Size", 80, FlowRow::size);
    c.setCellFactory(col -> new FlowCells.SizeCell());
    return c;
  }

  private static TableColumn<FlowRow, String> text(String name, double width, Function<FlowRow, String> value) {
    return column(name, width, value);
  }

  private static <T> TableColumn<FlowRow, T> column(String name, double width, Function<FlowRow, T> value) {
    TableColumn<FlowRow, T> c = new TableColumn<>(name);
    c.setId("col-" + name.toLowerCase(Locale.ROOT).replace('#', 'n'));
    c.setPrefWidth(width);
    c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(value.apply(cd.getValue())));
    c.setCellFactory(col -> new FlowCells.TextCell<>());
    return c;
  }
}
