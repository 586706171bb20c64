package dev.loupe.engine.flow.har;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The HAR 1.2 JSON schema of har-validator (npm har-schema 2.0.0, combined into
 * {@code har/har-1.2.schema.json}), with format assertions on so {@code date-time}, {@code uri},
 * {@code ipv4}/{@code ipv6} are checked as ajv checks them.
 */
final class HarSchema {
  private static final JsonSchema SCHEMA = load();

  private HarSchema() {}

  private static JsonSchema load() {
    try (InputStream in = HarSchema.class.getResourceAsStream("/har/har-1.2.schema.json")) {
      if (in == null) {
        throw new IllegalStateException("har/har-1.2.schema.json not on the test classpath");
      }
      SchemaValidatorsConfig config = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
      return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7).getSchema(in, config);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every validation message, as text; empty when {@code har} is valid. */
  static List<String> violations(JsonNode har) {
    return SCHEMA.validate(har).stream()
        .map(ValidationMessage::toString)
        .sorted()
        .collect(Collectors.toList());
  }
}
