package dev.loupe.ui.diff;

import dev.loupe.engine.flow.Flow;
import dev.loupe.ui.common.FxThread;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * The model of a side-by-side comparison ({@link DiffView}): the two sides' titles and the request
 * and response {@link MessageDiff}s. Two uses: {@link #compare(Flow, Flow)} (two flows the user
 * picked) and {@link #originalVsModified(Flow)} (what a rule or breakpoint changed on one flow).
 *
 * <p>Bodies are read, decoded and diffed on the background executor; results come back through
 * {@link FxThread}, and a result for an older request is dropped. UI thread only otherwise.
 */
public final class DiffViewModel {
  private final FxThread fx;
  private final Executor background;
  private final ReadOnlyStringWrapper leftTitle = new ReadOnlyStringWrapper(this, "leftTitle", "");
  private final ReadOnlyStringWrapper rightTitle = new ReadOnlyStringWrapper(this, "rightTitle", "");
  private final ReadOnlyObjectWrapper<MessageDiff> request = new ReadOnlyObjectWrapper<>(this, "request");
  private final ReadOnlyObjectWrapper<MessageDiff> response = new ReadOnlyObjectWrapper<>(this, "response");
  private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(this, "loading");
  private long generation;

  public DiffViewModel(FxThread fx, Executor background) {
    this.fx = fx;
    this.background = background;
  }

  /** Compares {@code left} and {@code right}: request with request, response with response. */
  public void compare(Flow left, Flow right) {
    load(title(left), title(right),
        () -> MessageSnapshot.request(left.request(), left.requestBody()),
        () -> MessageSnapshot.request(right.request(), right.requestBody()),
        () -> MessageSnapshot.response(left.response(), left.responseBody()),
        () -> MessageSnapshot.response(right.response(), right.responseBody()));
  }

  /** Compares {@code left} and {@code right} under titles of the caller's (flows of two sessions: "A #3 …"). */
  public void compare(String leftName, Flow left, String rightName, Flow right) {
    load(leftName + " " + title(left), rightName + " " + title(right),
        () -> MessageSnapshot.request(left.request(), left.requestBody()),
        () -> MessageSnapshot.request(right.request(), right.requestBody()),
        () -> MessageSnapshot.response(left.response(), left.responseBody()),
        () -> MessageSnapshot.response(right.response(), right.responseBody()));
  }

  /**
   * Compares what the client sent with what went upstream, and what the origin answered with what
   * the client got. A side nothing changed is shown the same on both sides.
   */
  public void originalVsModified(Flow f) {
    load("Original (#" + f.id() + ")", "Modified (#" + f.id() + ")",
        () -> f.originalRequest() == null ? MessageSnapshot.request(f.request(), f.requestBody())
            : MessageSnapshot.request(f.originalRequest(), f.originalRequestBody()),
        () -> MessageSnapshot.request(f.request(), f.requestBody()),
        () -> f.originalResponse() == null ? MessageSnapshot.response(f.response(), f.responseBody())
            : MessageSnapshot.response(f.originalResponse(), f.originalResponseBody()),
        () -> MessageSnapshot.response(f.response(), f.responseBody()));
  }

  /** Compares messages in hand (tests, drafts). */
  public void compare(String leftName, String rightName, MessageSnapshot leftRequest, MessageSnapshot rightRequest,
      MessageSnapshot leftResponse, MessageSnapshot rightResponse) {
    load(leftName, rightName, () -> leftRequest, () -> rightRequest, () -> leftResponse, () -> rightResponse);
  }

  private void load(String lt, String rt, Supplier<MessageSnapshot> lq, Supplier<MessageSnapshot> rq,
      Supplier<MessageSnapshot> ls, Supplier<MessageSnapshot> rs) {
    long gen = ++generation;
    leftTitle.set(lt);
    rightTitle.set(rt);
    loading.set(true);
    background.execute(() -> {
      MessageDiff req = MessageDiff.of(lq.get(), rq.get());
      MessageDiff res = MessageDiff.of(ls.get(), rs.get());
      fx.post(() -> {
        if (gen == generation) {
          request.set(req);
          response.set(res);
          loading.set(false);
        }
      });
    });
  }

  /** Shows nothing. */
  public void clear() {
    generation++;
    leftTitle.set("");
    rightTitle.set("");
    request.set(null);
    response.set(null);
    loading.set(false);
  }

  static String title(Flow f) {
    return "#" + f.id() + (f.request() == null ? "" : " " + f.request().method() + " " + f.request().url());
  }

  public ReadOnlyStringProperty leftTitleProperty() {
    return leftTitle.getReadOnlyProperty();
  }

  public ReadOnlyStringProperty rightTitleProperty() {
    return rightTitle.getReadOnlyProperty();
  }

  /** The requests compared, or null before the first result. */
  public ReadOnlyObjectProperty<MessageDiff> requestProperty() {
    return request.getReadOnlyProperty();
  }

  /** The responses compared, or null before the first result. */
  public ReadOnlyObjectProperty<MessageDiff> responseProperty() {
    return response.getReadOnlyProperty();
  }

  /** Whether a comparison is being computed. */
  public ReadOnlyBooleanProperty loadingProperty() {
    return loading.getReadOnlyProperty();
  }
}
