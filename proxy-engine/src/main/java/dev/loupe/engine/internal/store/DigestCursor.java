package dev.loupe.engine.internal.store;

import dev.loupe.engine.api.session.model.BodyDigest;
import dev.loupe.engine.api.session.model.DigestSource;
import dev.loupe.engine.api.session.model.FlowDigest;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.engine.api.session.model.WebSocketDigest;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The flows of a session file as {@link FlowDigest}s, in the order a session diff merges them: by
 * the diff key ({@code loupe_diff_key}, the Java function registered on every reader connection),
 * then id.
 *
 * <h3>Memory</h3>
 * SQLite sorts only (key, id) pairs, spilling to temporary files as it needs; each flow is then read
 * by id, its bodies and WebSocket messages hashed as they stream from the file (nothing is spilled),
 * and dropped. One flow is held at a time (and of a long-lived WebSocket, the digests of its first
 * messages, see {@link WebSocketDigest}).
 *
 * <p>Holds one of the session's reader connections (and its read snapshot) until closed. One
 * thread at a time.
 */
public final class DigestCursor implements DigestSource {
  private final SessionDb db;
  private final FlowReader reader;
  private final Connection c;
  private PreparedStatement ids;
  private PreparedStatement row;
  private PreparedStatement messages;
  private ResultSet order;
  private long count;
  private boolean closed;

  /** @param mode the matching mode ({@link dev.loupe.engine.api.session.DiffOptions#mode()}) */
  public DigestCursor(SessionDb db, FlowReader reader, String mode) throws SQLException {
    this.db = db;
    this.reader = reader;
    this.c = db.borrowReader();
    try {
      ids = c.prepareStatement("SELECT id FROM flow ORDER BY loupe_diff_key(method, url, ?), id");
      ids.setString(1, mode);
      row = c.prepareStatement("SELECT " + FlowWriter.COLUMNS + " FROM flow WHERE id = ?");
      messages = c.prepareStatement("SELECT direction, opcode, length, time, payload FROM message WHERE flow = ?"
          + " ORDER BY seq");
      order = ids.executeQuery();
    } catch (SQLException e) {
      close();
      throw e;
    }
  }

  @Override
  public FlowDigest next() throws SessionException {
    try {
      while (order.next()) {
        row.setLong(1, order.getLong(1));
        try (ResultSet r = row.executeQuery()) {
          if (r.next()) {
            count++;
            FlowBuilder b = reader.row(c, r, true, false);
            return digest(b, r, b.webSocket ? webSocket(b.id) : WebSocketDigest.NONE);
          }
        }
      }
      return null;
    } catch (SQLException e) {
      throw SessionDb.translate(db.file(), e, "cannot read");
    } catch (IOException | java.io.UncheckedIOException e) {
      throw new SessionException(SessionException.Reason.IO, db.file(), db.file() + ": cannot read: " + e.getMessage(),
          e);
    }
  }

  /** The flow's messages, digested as they stream from the file (one payload in memory at a time). */
  private WebSocketDigest webSocket(long flow) throws SQLException {
    WebSocketDigest.Builder out = new WebSocketDigest.Builder();
    messages.setLong(1, flow);
    try (ResultSet r = messages.executeQuery()) {
      while (r.next()) {
        out.add(new WebSocketMessage(WebSocketMessage.Direction.values()[r.getInt(1)], r.getInt(2), r.getBytes(5),
            r.getLong(3), FlowWriter.instant(r.getLong(4))));
      }
    }
    return out.build();
  }

  private static FlowDigest digest(FlowBuilder b, ResultSet r, WebSocketDigest webSocket) throws SQLException, IOException {
    boolean inFlight = b.state == FlowState.IN_FLIGHT;
    double total = r.getDouble(18); // total_ms
    if (r.wasNull() || inFlight) {
      total = -1;
    }
    FlowError error = inFlight ? new FlowError(FlowError.Kind.INTERNAL, FlowBuilder.INCOMPLETE) : b.error;
    Headers reqHeaders = b.request == null ? Headers.EMPTY : b.request.headers();
    Headers resHeaders = b.response == null ? Headers.EMPTY : b.response.headers();
    return new FlowDigest(b.id, b.request == null ? "" : b.request.method(), b.request == null ? "" : b.request.url(),
        b.response == null ? 0 : b.response.status(), reqHeaders, resHeaders,
        body(b.request == null ? null : reqHeaders, b.requestBody),
        body(b.response == null ? null : resHeaders, b.responseBody), total,
        error == null ? null : error.kind().name(), error == null ? null : error.toString(), webSocket);
  }

  private static BodyDigest body(Headers headers, StoredBody b) throws IOException {
    if (b == null || b.size() == 0) {
      return BodyDigest.EMPTY;
    }
    boolean whole = !b.truncated() && b.content() != null && b.captured() == b.size();
    return BodyDigest.of(headers == null ? null : headers.get("content-encoding"), b.size(), whole,
        whole ? b.content()::open : null);
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (AutoCloseable a : new AutoCloseable[] {order, ids, row, messages}) {
      try {
        if (a != null) {
          a.close();
        }
      } catch (Exception ignored) {
        // the connection goes back either way
      }
    }
    db.returnReader(c);
  }
}
