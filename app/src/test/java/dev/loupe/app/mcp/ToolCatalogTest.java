package dev.loupe.app.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.app.control.ControlChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Every tool's schema uses only what {@link ToolSchemaValidator} checks, and the checks say what is wrong. */
@Timeout(10)
class ToolCatalogTest {
  @TempDir Path tmp;

  static final ControlChannel NOWHERE = new ControlChannel() {
    @Override
    public Reply send(String method, String path, Map<String, String> query, String body) {
      throw new AssertionError("not called");
    }

    @Override
    public String describe() {
      return "nowhere";
    }
  };

  @Test
  void everySchemaIsFullyUnderstoodAndTheToolsAreDescribed() {
    List<LoupeTool> tools = new LoupeMcp(NOWHERE, new McpOptions(false, true), new McpCallLog(tmp)).tools();
    assertThat(tools).extracting(LoupeTool::name).containsExactlyInAnyOrderElementsOf(McpScenario.ALL_TOOLS);
    assertThat(tools).filteredOn(LoupeTool::writes).extracting(LoupeTool::name)
        .containsExactlyInAnyOrderElementsOf(McpScenario.WRITE_TOOLS);
    ToolSchemaValidator v = new ToolSchemaValidator();
    for (LoupeTool t : tools) {
      assertThat(v.validateSchema(t.schema()).valid()).as(t.name() + ": " + v.validateSchema(t.schema()).errorMessage())
          .isTrue();
      assertThat(t.description()).as(t.name()).hasSizeGreaterThan(40);
    }
    assertThat(v.validateSchema(Map.of("type", "object", "oneOf", List.of())).errorMessage())
        .contains("unsupported keyword \"oneOf\"");
  }

  @Test
  void invalidArgumentsAreNamed() {
    Map<String, Object> schema = Schemas.object(List.of("flowId"),
        "flowId", Schemas.integer("id", 0, 100),
        "side", Schemas.oneOf("side", "request", "response"),
        "headers", Schemas.headers("h"),
        "name", Schemas.string("n"));
    ToolSchemaValidator v = new ToolSchemaValidator();
    assertThat(v.validate(schema, Map.of("flowId", 5, "side", "request", "headers", List.of())).valid()).isTrue();
    assertThat(v.validate(schema, Map.of("flowId", 5.0)).valid()).as("5.0 is an integer in JSON").isTrue();
    assertThat(v.validate(schema, Map.of()).errorMessage()).isEqualTo("flowId is required");
    assertThat(v.validate(schema, Map.of("flowId", "7")).errorMessage()).isEqualTo("flowId must be an integer, got \"7\"");
    assertThat(v.validate(schema, Map.of("flowId", 101)).errorMessage()).isEqualTo("flowId must be at most 100, got 101");
    assertThat(v.validate(schema, Map.of("flowId", 1, "side", "both")).errorMessage())
        .isEqualTo("side must be one of [request, response], got \"both\"");
    assertThat(v.validate(schema, Map.of("flowId", 1, "headers", "x")).errorMessage())
        .isEqualTo("headers must be an array or an object, got \"x\"");
    assertThat(v.validate(schema, Map.of("flowId", 1, "nmae", "x")).errorMessage())
        .isEqualTo("unknown argument \"nmae\" (known: flowId, headers, name, side)");
  }
}
