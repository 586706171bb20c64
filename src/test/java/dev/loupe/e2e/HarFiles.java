package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * Reading and checking HAR files in end-to-end tests: the HAR 1.2 JSON schema (har-schema, on the
 * classpath from the engine's test jar as {@code har/har-1.2.schema.json}) with format assertions
 * on, plus the rules the schema cannot express.
 */
final class HarFiles {
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
  private static final JsonSchema SCHEMA = load();

  private HarFiles() {}

  private static JsonSchema load() {
    try (InputStream in = HarFiles.class.getResourceAsStream("/har/har-1.2.schema.json")) {
      if (in == null) {
        throw new IllegalStateException("har/har-1.2.schema.json is not on the test classpath");
      }
      SchemaValidatorsConfig config = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
      return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7).getSchema(in, config);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode read(Path file) throws IOException {
    return MAPPER.readTree(file.toFile());
  }

  /** Every schema violation as text; empty when valid. */
  static List<String> violations(JsonNode har) {
    return SCHEMA.validate(har).stream().map(ValidationMessage::toString).sorted().toList();
  }

  /**
   * Schema-valid, and for every entry: an absolute http(s) URL, {@code time} equal to the sum of
   * the known timings. HAR 1.2: "time ... is the sum of all timings available in the timings
   * object (i.e. not including -1 values)", and ssl, when known, "is also included in the connect
   * field", so it is not added a second time.
   */
  static void assertValid(JsonNode har) {
    assertThat(violations(har)).as("HAR 1.2 schema violations").isEmpty();
    assertThat(har.path("log").path("version").asText()).isEqualTo("1.2");
    for (JsonNode e : har.path("log").path("entries")) {
      String url = e.path("request").path("url").asText();
      URI u = URI.create(url);
      assertThat(u.isAbsolute()).as("absolute url: %s", url).isTrue();
      assertThat(u.getScheme()).as("scheme of %s", url).isIn("http", "https");
      assertThat(u.getHost()).as("host of %s", url).isNotBlank();

      JsonNode t = e.path("timings");
      BigDecimal sum = BigDecimal.ZERO;
      for (String part : List.of("blocked", "dns", "connect", "send", "wait", "receive")) {
        BigDecimal v = t.path(part).decimalValue();
        assertThat(v).as("%s of %s", part, url).isGreaterThanOrEqualTo(BigDecimal.valueOf(-1));
        if (v.compareTo(BigDecimal.valueOf(-1)) != 0) {
          sum = sum.add(v);
        }
      }
      for (String required : List.of("send", "wait", "receive")) {
        assertThat(t.path(required).decimalValue()).as("%s of %s", required, url)
            .isGreaterThanOrEqualTo(BigDecimal.ZERO);
      }
      assertThat(e.path("time").decimalValue()).as("time of %s = sum of known timings %s", url, t)
          .isEqualByComparingTo(sum);
    }
  }
}
