package dev.loupe.ui.detail;

import java.util.List;
import javafx.collections.ObservableList;
import javafx.scene.control.Label;
import javafx.scene.layout.Region;
import javafx.scene.shape.Rectangle;

/**
 * The timing waterfall: one row per phase (name, a bar placed on a shared time axis, its duration),
 * then the total. Drawn with shapes and laid out to the chart's width; bars are styled by phase
 * ({@code .timing-bar.phase-dns}).
 */
final class TimingChart extends Region {
  private static final double ROW = 26;
  private static final double NAME_WIDTH = 90;
  private static final double VALUE_WIDTH = 90;
  private static final double PAD = 12;

  private final ObservableList<TimingPhase> phases;
  private final javafx.beans.value.ObservableDoubleValue totalMs;

  TimingChart(ObservableList<TimingPhase> phases, javafx.beans.value.ObservableDoubleValue totalMs) {
    this.phases = phases;
    this.totalMs = totalMs;
    setId("timing-chart");
    getStyleClass().add("timing-chart");
    phases.addListener((javafx.collections.ListChangeListener<TimingPhase>) c -> rebuild());
    totalMs.addListener((o, was, now) -> rebuild());
    rebuild();
  }

  private void rebuild() {
    getChildren().clear();
    if (phases.isEmpty()) {
      Label none = new Label("No timings recorded for this flow");
      none.getStyleClass().add("detail-hint");
      getChildren().add(none);
      requestLayout();
      return;
    }
    for (TimingPhase p : phases) {
      Label name = new Label(p.name());
      name.getStyleClass().add("timing-name");
      Rectangle bar = new Rectangle();
      bar.getStyleClass().addAll("timing-bar", p.styleClass());
      bar.setUserData(p);
      Label value = new Label(TimingPhase.format(p.ms()));
      value.getStyleClass().add("timing-value");
      getChildren().addAll(name, bar, value);
    }
    Label total = new Label("Total  " + TimingPhase.format(total()));
    total.setId("timing-total");
    total.getStyleClass().add("timing-total");
    getChildren().add(total);
    requestLayout();
  }

  /** The axis' length: the flow's total, or the phases' sum if that is longer. */
  private double total() {
    double sum = 0;
    for (TimingPhase p : phases) {
      sum = Math.max(sum, p.startMs() + p.ms());
    }
    return Math.max(sum, totalMs.get());
  }

  @Override
  protected void layoutChildren() {
    List<javafx.scene.Node> kids = getChildren();
    if (phases.isEmpty()) {
      if (!kids.isEmpty()) {
        kids.get(0).resizeRelocate(PAD, PAD, getWidth() - 2 * PAD, ROW);
      }
      return;
    }
    double axis = Math.max(40, getWidth() - NAME_WIDTH - VALUE_WIDTH - 3 * PAD);
    double total = total();
    double scale = total > 0 ? axis / total : 0;
    int i = 0;
    for (TimingPhase p : phases) {
      double y = PAD + i * ROW;
      Label name = (Label) kids.get(3 * i);
      Rectangle bar = (Rectangle) kids.get(3 * i + 1);
      Label value = (Label) kids.get(3 * i + 2);
      name.resizeRelocate(PAD, y, NAME_WIDTH, ROW - 6);
      double x = PAD + NAME_WIDTH + p.startMs() * scale;
      double w = Math.max(2, p.ms() * scale);
      bar.setX(x);
      bar.setY(y + 3);
      bar.setWidth(w);
      bar.setHeight(ROW - 12);
      value.resizeRelocate(x + w + 6, y, VALUE_WIDTH, ROW - 6);
      i++;
    }
    kids.get(kids.size() - 1).resizeRelocate(PAD, PAD + i * ROW + 4, NAME_WIDTH + VALUE_WIDTH + 100, ROW - 6);
  }

  @Override
  protected double computePrefHeight(double width) {
    return 2 * PAD + (phases.size() + 1) * ROW + 4;
  }

  @Override
  protected double computePrefWidth(double height) {
    return 600;
  }
}
