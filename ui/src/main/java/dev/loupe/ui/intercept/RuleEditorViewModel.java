package dev.loupe.ui.intercept;

import dev.loupe.engine.api.intercept.RewriteOp;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.api.intercept.RuleAction;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.filter.FilterSyntaxException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import javafx.beans.Observable;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The rule editor's state for one rule of one {@link Type}: name, filter, enabled, and the fields of
 * that type's action. Every change re-validates: {@link #filterErrorProperty()} reads like the main
 * filter bar's ({@code expected ')' at 12}), {@link #errorProperty()} names what is wrong with the
 * action (from {@link RuleAction#validate()}, or a field that is not a number), and {@link
 * #validProperty()} enables Save. {@link #build()} gives the rule (keeping the edited rule's id).
 * UI thread only.
 */
public final class RuleEditorViewModel {
  /** The rule types, in the order the "Add" menu lists them. */
  public enum Type {
    MAP_LOCAL("Map Local", "Answer matching requests from a local file or directory"),
    MAP_REMOTE("Map Remote", "Send matching requests to another URL"),
    REWRITE("Rewrite", "Change headers, URL, query, body or status"),
    BLOCK("Block", "Answer with a status, or close or reset the connection"),
    THROTTLE("Throttle", "Limit the bandwidth and add latency");

    private final String label;
    private final String help;

    Type(String label, String help) {
      this.label = label;
      this.help = help;
    }

    public String label() {
      return label;
    }

    public String help() {
      return help;
    }

    /** The type of {@code action}. */
    public static Type of(RuleAction action) {
      if (action instanceof RuleAction.MapLocal) {
        return MAP_LOCAL;
      } else if (action instanceof RuleAction.MapRemote) {
        return MAP_REMOTE;
      } else if (action instanceof RuleAction.Rewrite) {
        return REWRITE;
      } else if (action instanceof RuleAction.Block) {
        return BLOCK;
      }
      return THROTTLE;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  /** Units of the throttle rate field. */
  public enum RateUnit {
    BYTES("B/s", 1), KIB("KiB/s", 1024), MIB("MiB/s", 1024 * 1024);

    private final String label;
    private final long bytes;

    RateUnit(String label, long bytes) {
      this.label = label;
      this.bytes = bytes;
    }

    public long bytes() {
      return bytes;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  /** One editable row of a Rewrite rule's table. */
  public static final class OpRow {
    private final ObjectProperty<RewriteOp.Side> side = new SimpleObjectProperty<>(this, "side", RewriteOp.Side.REQUEST);
    private final ObjectProperty<RewriteOp.Kind> kind = new SimpleObjectProperty<>(this, "kind", RewriteOp.Kind.SET_HEADER);
    private final StringProperty match = new SimpleStringProperty(this, "match", "");
    private final StringProperty value = new SimpleStringProperty(this, "value", "");

    public OpRow(RewriteOp op) {
      side.set(op.side());
      kind.set(op.kind());
      match.set(op.match());
      value.set(op.value());
    }

    public ObjectProperty<RewriteOp.Side> sideProperty() {
      return side;
    }

    public ObjectProperty<RewriteOp.Kind> kindProperty() {
      return kind;
    }

    public StringProperty matchProperty() {
      return match;
    }

    public StringProperty valueProperty() {
      return value;
    }

    public RewriteOp toOp() {
      return new RewriteOp(side.get(), kind.get(), match.get(), value.get());
    }

    Observable[] observables() {
      return new Observable[] {side, kind, match, value};
    }
  }

  private final Type type;
  private final String id;
  private final StringProperty name = new SimpleStringProperty(this, "name", "");
  private final StringProperty filter = new SimpleStringProperty(this, "filter", "");
  private final BooleanProperty enabled = new SimpleBooleanProperty(this, "enabled", true);
  private final StringProperty localPath = new SimpleStringProperty(this, "localPath", "");
  private final StringProperty stripPrefix = new SimpleStringProperty(this, "stripPrefix", "");
  private final StringProperty remoteUrl = new SimpleStringProperty(this, "remoteUrl", "");
  private final BooleanProperty keepPath = new SimpleBooleanProperty(this, "keepPath", true);
  /**
   * No extractor: a row's own changes are watched by listeners ({@link #listen}), so a table over
   * the list is not told to rebuild its cells on every keystroke.
   */
  private final ObservableList<OpRow> ops = FXCollections.observableArrayList();
  private final ObjectProperty<RuleAction.Block.Mode> blockMode =
      new SimpleObjectProperty<>(this, "blockMode", RuleAction.Block.Mode.RESPOND);
  private final StringProperty blockStatus = new SimpleStringProperty(this, "blockStatus", "403");
  private final StringProperty rate = new SimpleStringProperty(this, "rate", "");
  private final ObjectProperty<RateUnit> rateUnit = new SimpleObjectProperty<>(this, "rateUnit", RateUnit.KIB);
  private final StringProperty latency = new SimpleStringProperty(this, "latency", "");
  private final ReadOnlyStringWrapper filterError = new ReadOnlyStringWrapper(this, "filterError", "");
  private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper(this, "error", "");
  private final ReadOnlyBooleanWrapper valid = new ReadOnlyBooleanWrapper(this, "valid");

  /** A new rule of {@code type} (enabled, matching everything until a filter is given). */
  public RuleEditorViewModel(Type type) {
    this.type = type;
    this.id = null;
    if (type == Type.REWRITE) {
      ops.add(new OpRow(new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.SET_HEADER, "", "")));
    }
    if (type == Type.THROTTLE) {
      rate.set("256");
    }
    listen();
  }

  /** Edits {@code rule} (Save keeps its id and place). */
  public RuleEditorViewModel(Rule rule) {
    this.type = Type.of(rule.action());
    this.id = rule.id();
    name.set(rule.name());
    filter.set(rule.filter());
    enabled.set(rule.enabled());
    RuleAction a = rule.action();
    if (a instanceof RuleAction.MapLocal ml) {
      localPath.set(ml.path());
      stripPrefix.set(ml.stripPrefix());
    } else if (a instanceof RuleAction.MapRemote mr) {
      remoteUrl.set(mr.url());
      keepPath.set(mr.keepPath());
    } else if (a instanceof RuleAction.Rewrite rw) {
      rw.ops().forEach(op -> ops.add(new OpRow(op)));
    } else if (a instanceof RuleAction.Block b) {
      blockMode.set(b.mode());
      blockStatus.set(Integer.toString(b.status()));
    } else if (a instanceof RuleAction.Throttle t) {
      // the largest unit that shows the rate with at most two decimals: 256 KiB/s, 1.5 MiB/s, 1000 B/s
      RateUnit unit = RateUnit.BYTES;
      for (RateUnit u : RateUnit.values()) {
        if (t.bytesPerSecond() >= u.bytes && t.bytesPerSecond() * 100 % u.bytes == 0) {
          unit = u;
        }
      }
      rateUnit.set(unit);
      rate.set(t.bytesPerSecond() == 0 ? "" : BigDecimal.valueOf(t.bytesPerSecond())
          .divide(BigDecimal.valueOf(unit.bytes)).stripTrailingZeros().toPlainString());
      latency.set(t.latencyMillis() == 0 ? "" : Long.toString(t.latencyMillis()));
    }
    listen();
  }

  private void listen() {
    javafx.beans.InvalidationListener check = x -> validate();
    for (Observable o : new Observable[] {name, filter, enabled, localPath, stripPrefix, remoteUrl, keepPath, ops,
        blockMode, blockStatus, rate, rateUnit, latency}) {
      o.addListener(check);
    }
    ops.forEach(row -> watch(row, check));
    ops.addListener((javafx.collections.ListChangeListener<OpRow>) c -> {
      while (c.next()) {
        c.getAddedSubList().forEach(row -> watch(row, check));
        c.getRemoved().forEach(row -> {
          for (Observable o : row.observables()) {
            o.removeListener(check);
          }
        });
      }
    });
    validate();
  }

  private static void watch(OpRow row, javafx.beans.InvalidationListener check) {
    for (Observable o : row.observables()) {
      o.addListener(check);
    }
  }

  public Type type() {
    return type;
  }

  /** Whether this edits an existing rule (false: a new one). */
  public boolean editing() {
    return id != null;
  }

  /** Blank: the action's description ("Map Local → /srv/mock"). */
  public StringProperty nameProperty() {
    return name;
  }

  public StringProperty filterProperty() {
    return filter;
  }

  public BooleanProperty enabledProperty() {
    return enabled;
  }

  public StringProperty localPathProperty() {
    return localPath;
  }

  public StringProperty stripPrefixProperty() {
    return stripPrefix;
  }

  public StringProperty remoteUrlProperty() {
    return remoteUrl;
  }

  public BooleanProperty keepPathProperty() {
    return keepPath;
  }

  /** Rewrite: the changes, in order. */
  public ObservableList<OpRow> ops() {
    return ops;
  }

  public ObjectProperty<RuleAction.Block.Mode> blockModeProperty() {
    return blockMode;
  }

  public StringProperty blockStatusProperty() {
    return blockStatus;
  }

  /** Throttle: the rate in {@link #rateUnitProperty()} units, decimals allowed; blank or 0 = unlimited. */
  public StringProperty rateProperty() {
    return rate;
  }

  public ObjectProperty<RateUnit> rateUnitProperty() {
    return rateUnit;
  }

  /** Throttle: added latency in milliseconds; blank = none. */
  public StringProperty latencyProperty() {
    return latency;
  }

  public ReadOnlyStringProperty filterErrorProperty() {
    return filterError.getReadOnlyProperty();
  }

  public ReadOnlyStringProperty errorProperty() {
    return error.getReadOnlyProperty();
  }

  public ReadOnlyBooleanProperty validProperty() {
    return valid.getReadOnlyProperty();
  }

  /** Adds a rewrite row (request, set header). */
  public OpRow addOp() {
    OpRow row = new OpRow(new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.SET_HEADER, "", ""));
    ops.add(row);
    return row;
  }

  /** The rule as edited, or null while something is invalid. */
  public Rule build() {
    if (!validate()) {
      return null;
    }
    return new Rule(id, name.get() == null ? "" : name.get().trim(), enabled.get(), filter.get().trim(), action());
  }

  /** Re-checks every field; true when the rule can be saved. */
  public boolean validate() {
    String fe = "";
    try {
      Filter.parse(filter.get() == null ? "" : filter.get());
    } catch (FilterSyntaxException e) {
      fe = e.getMessage();
    }
    filterError.set(fe);
    String ae = "";
    try {
      action().validate();
    } catch (IllegalArgumentException e) {
      ae = e.getMessage();
    }
    error.set(ae);
    valid.set(fe.isEmpty() && ae.isEmpty());
    return valid.get();
  }

  /**
   * The action from the fields.
   *
   * @throws IllegalArgumentException when a number field is not a number or a rewrite row is bad
   */
  RuleAction action() {
    return switch (type) {
      case MAP_LOCAL -> new RuleAction.MapLocal(localPath.get().trim(), stripPrefix.get().trim());
      case MAP_REMOTE -> new RuleAction.MapRemote(remoteUrl.get().trim(), keepPath.get());
      case REWRITE -> rewrite();
      case BLOCK -> new RuleAction.Block(blockMode.get(),
          blockMode.get() == RuleAction.Block.Mode.RESPOND ? number("Status", blockStatus.get(), false) : 0);
      case THROTTLE -> new RuleAction.Throttle(rateBytes(), number("Latency", latency.get(), true));
    };
  }

  /** The rewrite from its rows, each checked on its own so the message can say which row is wrong. */
  private RuleAction.Rewrite rewrite() {
    List<RewriteOp> list = new ArrayList<>(ops.size());
    for (int i = 0; i < ops.size(); i++) {
      RewriteOp op = ops.get(i).toOp();
      try {
        new RuleAction.Rewrite(List.of(op)).validate();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Row " + (i + 1) + ": " + e.getMessage(), e);
      }
      list.add(op);
    }
    return new RuleAction.Rewrite(list);
  }

  private long rateBytes() {
    String t = rate.get() == null ? "" : rate.get().trim();
    if (t.isEmpty()) {
      return 0;
    }
    BigDecimal v;
    try {
      v = new BigDecimal(t);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Rate must be a number, got \"" + t + "\"");
    }
    if (v.signum() < 0) {
      throw new IllegalArgumentException("Rate must not be negative");
    }
    return v.multiply(BigDecimal.valueOf(rateUnit.get().bytes)).longValue();
  }

  private static int number(String what, String text, boolean blankIsZero) {
    String t = text == null ? "" : text.trim();
    if (t.isEmpty() && blankIsZero) {
      return 0;
    }
    try {
      return Integer.parseInt(t);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " must be a whole number, got \"" + t + "\"");
    }
  }
}
