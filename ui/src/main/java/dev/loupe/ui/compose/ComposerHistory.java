package dev.loupe.ui.compose;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.util.AtomicFiles;
import dev.loupe.engine.flow.Headers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * The composer's history of sent requests, newest first, in {@code composer-history.json} in the
 * configuration directory: at most {@link #MAX_ENTRIES} entries, bodies over {@link #MAX_BODY}
 * bytes left out, written atomically and readable by the owner only ({@link AtomicFiles}: requests
 * carry cookies and tokens).
 *
 * <p>Secrets are not written unless the user opted in ({@link #keepSecrets(boolean)}, saved in the
 * file): credential headers keep their name with an empty value and the URL loses its password
 * ({@link HistorySecrets}); the entry lists what was left out ({@link Entry#redacted()}). Switching
 * the option off scrubs the file at the next save.
 *
 * <p>A file that cannot be read or parsed gives an empty history (and is replaced on the next
 * send); it never stops the composer.
 */
public final class ComposerHistory {
  public static final String FILE_NAME = "composer-history.json";
  public static final int MAX_ENTRIES = 100;
  /** Bodies larger than this are not kept in the history ({@link Entry#bodyOmitted()}). */
  public static final int MAX_BODY = 256 * 1024;
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * One sent request.
   *
   * @param bodyOmitted whether the body was too large to keep ({@code request.body()} is then empty)
   * @param redacted    the headers (and "URL password") whose values were not kept; empty when none
   */
  public record Entry(Instant sentAt, RequestDraft request, Replayer.Protocol protocol, boolean bodyOmitted,
      List<String> redacted) {
    public Entry {
      Objects.requireNonNull(sentAt, "sentAt");
      Objects.requireNonNull(request, "request");
      Objects.requireNonNull(protocol, "protocol");
      redacted = List.copyOf(redacted);
    }

    /** An entry with nothing redacted (as sent). */
    public Entry(Instant sentAt, RequestDraft request, Replayer.Protocol protocol, boolean bodyOmitted) {
      this(sentAt, request, protocol, bodyOmitted, List.of());
    }

    /** What the history list shows: {@code POST https://example.com/api}. */
    @Override
    public String toString() {
      return request.method() + " " + request.url();
    }
  }

  private final Path file;
  /** Whether secrets are written; read from the file by {@link #load()}. Off by default. */
  private volatile boolean keepSecrets;

  public ComposerHistory(Path file) {
    this.file = Objects.requireNonNull(file, "file");
  }

  /** The history in {@code confdir}. */
  public static ComposerHistory in(Path confdir) {
    return new ComposerHistory(confdir.resolve(FILE_NAME));
  }

  public Path file() {
    return file;
  }

  /** Whether saves keep secrets (the user opted in); as last loaded or set. */
  public boolean keepsSecrets() {
    return keepSecrets;
  }

  /** Opts in to (or out of) keeping secrets; takes effect at the next {@link #save}. */
  public void keepSecrets(boolean on) {
    keepSecrets = on;
  }

  /** The entries, newest first; empty when there is no file or it cannot be read. */
  public List<Entry> load() {
    try {
      JsonNode root = JSON.readTree(Files.readAllBytes(file));
      keepSecrets = root.path("keepSecrets").asBoolean(false);
      List<Entry> out = new ArrayList<>();
      for (JsonNode e : root.path("entries")) {
        Entry entry = entry(e);
        if (entry != null && out.size() < MAX_ENTRIES) {
          out.add(entry);
        }
      }
      return out;
    } catch (NoSuchFileException missing) {
      return List.of();
    } catch (IOException | RuntimeException unreadable) {
      return List.of();
    }
  }

  /** Writes {@code entries} (the first {@link #MAX_ENTRIES}), without secrets unless opted in. */
  public void save(List<Entry> entries) throws IOException {
    boolean keep = keepSecrets;
    ObjectNode root = JSON.createObjectNode();
    root.put("version", 1);
    root.put("keepSecrets", keep);
    ArrayNode list = root.putArray("entries");
    for (Entry entry : entries.subList(0, Math.min(entries.size(), MAX_ENTRIES))) {
      Entry e = keep ? entry : redacted(entry);
      ObjectNode n = list.addObject();
      n.put("sentAt", e.sentAt().toString());
      n.put("protocol", e.protocol().name());
      n.put("method", e.request().method());
      n.put("url", e.request().url());
      ArrayNode headers = n.putArray("headers");
      for (Headers.Field f : e.request().headers().fields()) {
        headers.addArray().add(f.name()).add(f.value());
      }
      n.put("body", Base64.getEncoder().encodeToString(e.request().body()));
      if (e.bodyOmitted()) {
        n.put("bodyOmitted", true);
      }
      if (!e.redacted().isEmpty()) {
        ArrayNode r = n.putArray("redacted");
        e.redacted().forEach(r::add);
      }
    }
    AtomicFiles.write(file, JSON.writeValueAsBytes(root));
  }

  /** {@code e} as the file keeps it without the opt-in. */
  static Entry redacted(Entry e) {
    HistorySecrets.Redacted r = HistorySecrets.redact(e.request());
    if (r.removed().isEmpty()) {
      return e;
    }
    List<String> all = new ArrayList<>(e.redacted());
    r.removed().stream().filter(x -> !all.contains(x)).forEach(all::add);
    return new Entry(e.sentAt(), r.request(), e.protocol(), e.bodyOmitted(), all);
  }

  /**
   * {@code entries} with {@code sent} first: an older entry for the same request is dropped, the list
   * is cut to {@link #MAX_ENTRIES}, and a body over {@link #MAX_BODY} is left out.
   */
  public static List<Entry> add(List<Entry> entries, Entry sent) {
    Entry e = sent;
    if (e.request().body().length > MAX_BODY) {
      e = new Entry(e.sentAt(), e.request().withBody(new byte[0]), e.protocol(), true, e.redacted());
    }
    List<Entry> out = new ArrayList<>(Math.min(entries.size() + 1, MAX_ENTRIES));
    out.add(e);
    for (Entry old : entries) {
      if (out.size() >= MAX_ENTRIES) {
        break;
      }
      if (!(old.request().sameAs(e.request()) && old.protocol() == e.protocol())) {
        out.add(old);
      }
    }
    return out;
  }

  private static Entry entry(JsonNode n) {
    try {
      List<Headers.Field> fields = new ArrayList<>();
      for (JsonNode h : n.path("headers")) {
        fields.add(new Headers.Field(h.path(0).asText(), h.path(1).asText()));
      }
      RequestDraft d = new RequestDraft(n.path("method").asText("GET"), n.path("url").asText(""), "HTTP/1.1",
          Headers.of(fields), Base64.getDecoder().decode(n.path("body").asText("")));
      List<String> redacted = new ArrayList<>();
      n.path("redacted").forEach(r -> redacted.add(r.asText()));
      return new Entry(Instant.parse(n.path("sentAt").asText()),
          d, Replayer.Protocol.valueOf(n.path("protocol").asText("AUTO")), n.path("bodyOmitted").asBoolean(false),
          redacted);
    } catch (RuntimeException bad) {
      return null; // one bad entry does not lose the others
    }
  }
}
