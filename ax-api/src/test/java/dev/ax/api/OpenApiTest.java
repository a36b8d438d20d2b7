package dev.ax.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The hand-written OpenAPI document and the route table describe the same API. */
class OpenApiTest {
    private static final Set<String> METHODS = Set.of("get", "post", "put", "delete", "patch");

    @Test
    void documents_every_route_of_the_table_and_nothing_else() throws IOException {
        JsonNode doc = Json.mapper().readTree(SystemHandlers.readOpenApi());
        Set<String> documented = new TreeSet<>();
        Set<String> documentedRoles = new TreeSet<>();
        for (Iterator<Map.Entry<String, JsonNode>> paths = doc.get("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            path.getValue().fields().forEachRemaining(op -> {
                if (METHODS.contains(op.getKey())) {
                    String key = op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey();
                    documented.add(key);
                    documentedRoles.add(
                            key + " " + op.getValue().path("x-ax-role").asText());
                }
            });
        }
        Set<String> routed = new TreeSet<>();
        Set<String> routedRoles = new TreeSet<>();
        for (Route r : Routes.table(null)) {
            routed.add(r.method() + " " + r.path());
            routedRoles.add(r.method() + " " + r.path() + " " + r.role().wireName());
        }

        assertThat(documented).isEqualTo(routed);
        assertThat(documentedRoles).isEqualTo(routedRoles);
    }

    @Test
    void declares_the_main_schemas() throws IOException {
        JsonNode doc = Json.mapper().readTree(SystemHandlers.readOpenApi());

        assertThat(doc.get("openapi").asText()).startsWith("3.1");
        JsonNode schemas = doc.get("components").get("schemas");
        assertThat(schemas.has("TaskView")).isTrue();
        assertThat(schemas.has("RunView")).isTrue();
        assertThat(schemas.has("Error")).isTrue();
        assertThat(schemas.get("RunView").get("properties").has("waitingReason"))
                .isTrue();
        // every $ref points at a declared schema
        String text = doc.toString();
        var refs = Pattern.compile("#/components/schemas/(\\w+)").matcher(text);
        while (refs.find()) {
            assertThat(schemas.has(refs.group(1))).as(refs.group(1)).isTrue();
        }
    }

    @Test
    void both_trigger_routes_document_the_idempotency_key_and_its_answers() throws IOException {
        JsonNode doc = Json.mapper().readTree(SystemHandlers.readOpenApi());

        for (String path : new String[] {"/api/trigger", "/api/tasks/{name}/trigger"}) {
            JsonNode op = doc.get("paths").get(path).get("post");
            Set<String> headers = new TreeSet<>();
            op.get("parameters").forEach(p -> {
                if (p.get("in").asText().equals("header")) {
                    headers.add(p.get("name").asText());
                }
            });
            assertThat(headers).as(path).containsExactly("Idempotency-Key", "X-AX-Request-ID");
            assertThat(op.get("responses").has("200")).as(path).isTrue();
            assertThat(op.get("responses").has("422")).as(path).isTrue();
        }
        assertThat(doc.get("components")
                        .get("schemas")
                        .get("Triggered")
                        .get("properties")
                        .has("duplicate"))
                .isTrue();
    }

    @Test
    void route_paths_are_unique() {
        assertThat(Routes.table(null).stream()
                        .map(r -> r.method() + " " + r.path())
                        .distinct()
                        .count())
                .isEqualTo(Routes.table(null).size());
    }
}
