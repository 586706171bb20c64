package dev.loupe.app.control;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.Rule;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code --rules FILE}: a JSON array of rules, as the desktop window exports them (an entry without
 * {@code "enabled"} is enabled).
 */
public final class RulesFile {
  private RulesFile() {}

  /**
   * Reads and validates the rules in {@code file}.
   *
   * @throws IllegalArgumentException naming the file and the problem (unreadable, not JSON, a bad
   *     filter or action, duplicate ids)
   */
  public static List<Rule> read(Path file) {
    String json;
    try {
      json = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
    }
    try (InterceptService scratch = InterceptService.create()) { // validates exactly as the real list will
      ArrayNode entries = ControlJson.requireArrayOfObjects(ControlJson.parseText(json), "the file");
      List<Rule> rules = scratch.rules().parseJson(ControlJson.enabledByDefault(entries).toString());
      scratch.rules().replace(rules);
      return rules;
    } catch (IllegalArgumentException | ApiError e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage());
    }
  }
}
