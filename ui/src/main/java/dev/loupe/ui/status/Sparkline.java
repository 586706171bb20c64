package dev.loupe.ui.status;

import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.scene.layout.Region;
import javafx.scene.shape.Polyline;

/**
 * A small line chart of recent values (oldest left), scaled to the largest one; redrawn when the
 * values change. Style class {@code sparkline} (the line: {@code sparkline-line}).
 */
public final class Sparkline extends Region {
  private final ObservableList<Double> values;
  private final Polyline line = new Polyline();

  public Sparkline(ObservableList<Double> values, double width, double height) {
    this.values = values;
    getStyleClass().add("sparkline");
    line.getStyleClass().add("sparkline-line");
    line.setManaged(false);
    getChildren().add(line);
    setPrefSize(width, height);
    setMinSize(width, height);
    setMaxSize(width, height);
    values.addListener((ListChangeListener<Double>) c -> requestLayout());
  }

  @Override
  protected void layoutChildren() {
    double w = getWidth();
    double h = getHeight();
    int n = values.size();
    double max = 0;
    for (Double v : values) {
      max = Math.max(max, v);
    }
    double scale = max <= 0 ? 0 : (h - 2) / max;
    Double[] points = new Double[n * 2];
    for (int i = 0; i < n; i++) {
      points[2 * i] = n == 1 ? 0 : i * (w - 1) / (n - 1);
      points[2 * i + 1] = h - 1 - values.get(i) * scale;
    }
    line.getPoints().setAll(points);
  }

  /** The y of each point in view coordinates (tests). */
  double[] ys() {
    double[] ys = new double[line.getPoints().size() / 2];
    for (int i = 0; i < ys.length; i++) {
      ys[i] = line.getPoints().get(2 * i + 1);
    }
    return ys;
  }
}
