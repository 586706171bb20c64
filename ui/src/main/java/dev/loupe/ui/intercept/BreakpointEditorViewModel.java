package dev.loupe.ui.intercept;

import dev.loupe.engine.api.intercept.PausedFlow;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.flow.Flow;
import dev.loupe.ui.common.HeaderEntry;
import java.util.function.Supplier;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The editor of one paused flow. Request phase: method, URL, headers and body, plus an answer to
 * compose (status, reason, headers, body) for "Answer now". Response phase: status, reason,
 * headers and body of the response (the request that was sent is shown read-only).
 *
 * <p>The actions ({@link #resume()}, {@link #resumeUnchanged()}, {@link #abort()}, {@link
 * #answer()}) return false and set {@link #errorProperty()} instead of throwing: an invalid URL, a
 * bad header row, bad hex, a status out of range, or a flow already released elsewhere (timeout,
 * control API, the client leaving). {@link #releasedProperty()} turns true once the flow is released,
 * by this editor or elsewhere ({@link #released()}). UI thread only; releasing does not block.
 */
public final class BreakpointEditorViewModel {
  private final PausedFlow paused;
  private final StringProperty method = new SimpleStringProperty(this, "method", "");
  private final StringProperty url = new SimpleStringProperty(this, "url", "");
  private final StringProperty status = new SimpleStringProperty(this, "status", "");
  private final StringProperty reason = new SimpleStringProperty(this, "reason", "");
  private final ObservableList<HeaderEntry> headers = FXCollections.observableArrayList();
  private final BodyEditorModel body = new BodyEditorModel();
  private final StringProperty answerStatus = new SimpleStringProperty(this, "answerStatus", "200");
  private final StringProperty answerReason = new SimpleStringProperty(this, "answerReason", "");
  private final ObservableList<HeaderEntry> answerHeaders = FXCollections.observableArrayList();
  private final BodyEditorModel answerBody = new BodyEditorModel();
  private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper(this, "error", "");
  private final ReadOnlyBooleanWrapper released = new ReadOnlyBooleanWrapper(this, "released");

  public BreakpointEditorViewModel(PausedFlow paused) {
    this.paused = paused;
    RequestDraft req = paused.request();
    method.set(req.method());
    url.set(req.url());
    if (paused.phase() == Flow.Paused.REQUEST) {
      headers.setAll(HeaderEntry.of(req.headers()));
      body.load(req.body(), req.headers().get("content-type"));
    } else {
      ResponseDraft res = paused.response();
      status.set(Integer.toString(res.status()));
      reason.set(res.reason());
      headers.setAll(HeaderEntry.of(res.headers()));
      body.load(res.body(), res.headers().get("content-type"));
    }
    answerHeaders.setAll(new HeaderEntry("content-type", "text/plain; charset=utf-8"));
    answerBody.load(new byte[0], "text/plain");
    released.set(paused.released());
  }

  public PausedFlow paused() {
    return paused;
  }

  public boolean requestPhase() {
    return paused.phase() == Flow.Paused.REQUEST;
  }

  /** e.g. {@code #12 POST https://api.example.com/users — paused before the request goes upstream}. */
  public String title() {
    RequestDraft r = paused.request();
    return "#" + paused.flow().id() + "  " + r.method() + " " + r.url() + " — "
        + (requestPhase() ? "paused before the request goes upstream" : "paused before the response goes to the client");
  }

  public StringProperty methodProperty() {
    return method;
  }

  public StringProperty urlProperty() {
    return url;
  }

  /** Response phase: the status code as typed. */
  public StringProperty statusProperty() {
    return status;
  }

  public StringProperty reasonProperty() {
    return reason;
  }

  /** The request's headers (request phase) or the response's (response phase). */
  public ObservableList<HeaderEntry> headers() {
    return headers;
  }

  /** The request's body (request phase) or the response's (response phase). */
  public BodyEditorModel body() {
    return body;
  }

  public StringProperty answerStatusProperty() {
    return answerStatus;
  }

  /** The reason phrase of the answer; blank: the standard one for its status. */
  public StringProperty answerReasonProperty() {
    return answerReason;
  }

  public ObservableList<HeaderEntry> answerHeaders() {
    return answerHeaders;
  }

  public BodyEditorModel answerBody() {
    return answerBody;
  }

  /** What went wrong with the last action (shown inline), or empty. */
  public ReadOnlyStringProperty errorProperty() {
    return error.getReadOnlyProperty();
  }

  public ReadOnlyBooleanProperty releasedProperty() {
    return released.getReadOnlyProperty();
  }

  /** Told that the flow was released (by anyone). */
  public void released() {
    released.set(true);
  }

  /**
   * The request as edited (request phase).
   *
   * @throws IllegalArgumentException naming what is wrong (URL, method, header row, hex)
   */
  public RequestDraft requestDraft() {
    RequestDraft d = paused.request().withMethod(method.get().trim()).withUrl(url.get().trim())
        .withHeaders(HeaderEntry.toHeaders(headers)).withBody(body.bytes());
    d.toHead(); // the URL and method, checked here so the message can be shown
    return d;
  }

  /**
   * The response as edited (response phase).
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public ResponseDraft responseDraft() {
    ResponseDraft original = paused.response();
    int s = parseStatus(status.get());
    String r = s == original.status() ? reason.get() : reason.get().equals(original.reason()) ? "" : reason.get();
    return new ResponseDraft(s, r.isBlank() ? standardReason(s) : r.strip(), original.httpVersion(),
        HeaderEntry.toHeaders(headers), body.bytes());
  }

  /**
   * The composed answer (request phase).
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public ResponseDraft answerDraft() {
    int s = parseStatus(answerStatus.get());
    String r = answerReason.get() == null || answerReason.get().isBlank() ? standardReason(s) : answerReason.get().strip();
    return new ResponseDraft(s, r, "HTTP/1.1", HeaderEntry.toHeaders(answerHeaders), answerBody.bytes());
  }

  /** Resumes with the edits (unchanged fields go as they were). */
  public boolean resume() {
    return act(() -> requestPhase() ? paused.resume(requestDraft()) : paused.resume(responseDraft()));
  }

  /** Resumes as it was paused, ignoring any edits. */
  public boolean resumeUnchanged() {
    return act(paused::resume);
  }

  /** Aborts: the client gets its stream reset or its connection closed. */
  public boolean abort() {
    return act(paused::abort);
  }

  /** Request phase: answers the client with the composed answer without contacting the origin. */
  public boolean answer() {
    if (!requestPhase()) {
      error.set("The response is already here: edit it and press Resume");
      return false;
    }
    return act(() -> paused.answer(answerDraft()));
  }

  private boolean act(Supplier<Boolean> action) {
    if (released.get()) {
      error.set("This flow was already released");
      return false;
    }
    boolean done;
    try {
      done = action.get();
    } catch (IllegalArgumentException e) {
      error.set(e.getMessage());
      return false;
    }
    error.set(done ? "" : "This flow was already released (timeout, control API, or the client left)");
    released.set(true);
    return done;
  }

  static int parseStatus(String text) {
    String t = text == null ? "" : text.trim();
    int s;
    try {
      s = Integer.parseInt(t);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Status must be a number, got \"" + t + "\"");
    }
    if (s < 100 || s > 999) {
      throw new IllegalArgumentException("Status must be 100..999, got " + s);
    }
    return s;
  }

  /** The usual reason phrase for {@code status} (e.g. "Not Found"), or empty. */
  static String standardReason(int status) {
    return ResponseDraft.text(status, "").reason();
  }

  /** Whether any field differs from the paused message (true while a field does not parse). */
  public boolean edited() {
    try {
      return requestPhase() ? !requestDraft().sameAs(paused.request()) : !responseDraft().sameAs(paused.response());
    } catch (IllegalArgumentException e) {
      return true;
    }
  }
}
