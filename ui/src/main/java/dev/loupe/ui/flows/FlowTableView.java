package dev.loupe.ui.flows;

import dev.loupe.engine.api.session.model.SortKey;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;

/**
 * The live flow table: a virtualized {@link TableView} over the view model's visible rows, sortable
 * by any column (arrival order otherwise; the view model sorts), with a column chooser, and row
 * colours for errors and flows in flight ({@code flow-error}, {@code flow-in-flight} style classes); a flow paused at a
 * breakpoint gets {@code flow-paused} and "paused" in its Status column.
 */
public final class FlowTableView extends TableView<FlowRow> {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

  public FlowTableView(FlowListViewModel vm) {
    // The rows are ids in the view model, read when shown: sorting is the view model's (the store
    // sorts a million flows by its indexes), never a copy of the rows sorted here.
    setItems(vm.visibleRows());
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
    setFixedCellSize(24);
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
        getStyleClass().removeAll("flow-error", "flow-in-flight", "flow-paused");
        if (!empty && row != null) {
          if (row.paused() != null) {
            getStyleClass().add("flow-paused");
          } else if (row.error()) {
            getStyleClass().add("flow-error");
          } else if (row.durationMs() < 0) {
            getStyleClass().add("flow-in-flight");
          }
        }
      }
    });
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
    c.setCellFactory(col -> new javafx.scene.control.TableCell<>() {
      @Override
      protected void updateItem(FlowRow r, boolean empty) {
        super.updateItem(r, empty);
        getStyleClass().removeAll("status-4xx", "status-5xx", "status-paused");
        if (empty || r == null) {
          setText(null);
          return;
        }
        setTooltip(null);
        if (r.paused() != null) {
          setText("paused");
          setTooltip(new javafx.scene.control.Tooltip(r.paused() == dev.loupe.engine.flow.Flow.Paused.REQUEST
              ? "Paused before the request goes to the server" : "Paused before the response goes to the client"));
          getStyleClass().add("status-paused");
          return;
        }
        setText(r.status() == 0 ? (r.error() ? "ERR" : "…") : Integer.toString(r.status()));
        if (r.status() >= 500) {
          getStyleClass().add("status-5xx");
        } else if (r.status() >= 400) {
          getStyleClass().add("status-4xx");
        }
      }
    });
    return c;
  }

  /** Sorts by bytes, shows them as 335 B, 12.4 KiB, 18.5 MiB. */
  private static TableColumn<FlowRow, Long> sizeColumn() {
    TableColumn<FlowRow, Long> c = column("Size", 80, FlowRow::size);
    c.setCellFactory(col -> new javafx.scene.control.TableCell<>() {
      @Override
      protected void updateItem(Long bytes, boolean empty) {
        super.updateItem(bytes, empty);
        setText(empty || bytes == null ? null : FlowRow.humanBytes(bytes));
      }
    });
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
    return c;
  }
}
