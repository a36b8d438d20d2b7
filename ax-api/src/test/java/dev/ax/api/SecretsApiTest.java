package dev.ax.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.ApiClient.Response;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.run.Cause;
import dev.ax.store.TestDatabases;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The secrets routes: admin only, no answer with a value, each refusal naming its field; and output masked when shown. */
class SecretsApiTest {
    static final String VALUE = "s3cr3t-Value-9";

    TestNode node;
    ApiClient admin;

    @BeforeEach
    void start() {
        node = new TestNode(TestDatabases.h2());
        admin = node.client(TestNode.ADMIN);
    }

    @AfterEach
    void stop() {
        node.close();
    }

    Response put(String name, Object body) {
        return admin.put("/api/secrets/" + name, ApiClient.write(body));
    }

    static Map<String, Object> task(String name, Map<String, String> env) {
        return Map.of(
                "taskName",
                name,
                "trigger",
                Map.of("type", "event"),
                "action",
                Map.of("type", "shell", "command", "echo \"pw=$DB_PASSWORD\"", "env", env));
    }

    @Test
    void a_put_creates_then_replaces_and_no_answer_holds_the_value() {
        Response created = put("db_password", Map.of("value", VALUE));
        Response replaced = put("db_password", Map.of("value", VALUE + "-2"));
        Response list = admin.get("/api/secrets");

        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertThat(created.json().get("name").asText()).isEqualTo("db_password");
        assertThat(created.json().get("keyId").asText())
                .isEqualTo(node.node.secrets().keyId());
        assertThat(created.json().get("createdBy").asText()).isEqualTo("admin");
        assertThat(replaced.status()).as(replaced.toString()).isEqualTo(200);
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.json().get("items")).singleElement().satisfies(s -> {
            assertThat(s.get("name").asText()).isEqualTo("db_password");
            assertThat(s.has("value")).isFalse();
            assertThat(s.get("updatedAt").asText()).isNotBlank();
        });
        for (Response r : List.of(created, replaced, list)) {
            assertThat(r.body()).doesNotContain(VALUE);
        }
    }

    @Test
    void bad_names_and_values_are_refused_on_their_field_and_nothing_is_stored() {
        assertField(put("no%20space", Map.of("value", VALUE)), "name", "letters, digits");
        assertField(put("db_password", Map.of("value", "abc")), "value", "could not be masked");
        assertField(put("db_password", Map.of("value", 1234)), "value", "must be a string");
        assertField(put("db_password", Map.of()), "value", "is required");
        assertField(put("db_password", Map.of("value", VALUE, "note", "x")), "note", "unknown field");
        assertField(put("db_password", Map.of("value", "x".repeat(64 * 1024 + 1))), "value", "64 KiB");
        assertField(admin.put("/api/secrets/db_password", "[\"" + VALUE + "\"]"), "", "must be a JSON object");

        assertThat(admin.get("/api/secrets").json().get("items")).isEmpty();
    }

    private static void assertField(Response r, String field, String reason) {
        assertThat(r.status()).as(r.toString()).isEqualTo(400);
        assertThat(r.json().get("error").get("fields")).singleElement().satisfies(f -> {
            assertThat(f.get("field").asText()).isEqualTo(field);
            assertThat(f.get("reason").asText()).contains(reason);
        });
        assertThat(r.body()).doesNotContain(VALUE);
    }

    @Test
    void only_admins_reach_the_secrets() {
        ApiClient operator = node.client(TestNode.OPERATOR);
        ApiClient viewer = node.client(TestNode.VIEWER);

        assertThat(operator.put("/api/secrets/db_password", ApiClient.write(Map.of("value", VALUE)))
                        .status())
                .isEqualTo(403);
        assertThat(viewer.get("/api/secrets").status()).isEqualTo(403);
        assertThat(operator.delete("/api/secrets/db_password").status()).isEqualTo(403);
        assertThat(operator.post("/api/secrets/rotate-key", Map.of()).status()).isEqualTo(403);
        assertThat(node.client(null).get("/api/secrets").status()).isEqualTo(401);
    }

    @Test
    void a_delete_is_refused_while_a_task_uses_the_secret_and_404_when_there_is_none() {
        put("db_password", Map.of("value", VALUE));
        assertThat(admin.post("/api/tasks", task("nightly_dump", Map.of("DB_PASSWORD", "{{secret.db_password}}")))
                        .status())
                .isEqualTo(201);

        Response used = admin.delete("/api/secrets/db_password");
        assertThat(used.status()).as(used.toString()).isEqualTo(409);
        assertThat(used.json().get("error").get("message").asText()).contains("nightly_dump");

        assertThat(admin.delete("/api/tasks/nightly_dump").status()).isEqualTo(204);
        assertThat(admin.delete("/api/secrets/db_password").status()).isEqualTo(204);
        assertThat(admin.delete("/api/secrets/db_password").status()).isEqualTo(404);
    }

    @Test
    void a_task_naming_a_secret_not_set_is_a_400_on_its_field_and_a_plain_password_a_warning() {
        Response unknown = admin.post("/api/tasks", task("job", Map.of("DB_PASSWORD", "{{secret.db_password}}")));
        assertThat(unknown.status()).as(unknown.toString()).isEqualTo(400);
        assertThat(unknown.json().get("error").get("fields")).singleElement().satisfies(f -> {
            assertThat(f.get("field").asText()).isEqualTo("action.env.DB_PASSWORD");
            assertThat(f.get("reason").asText()).isEqualTo("secret db_password is not set; ax secret set db_password");
        });

        Response plain = admin.post("/api/tasks", task("job", Map.of("DB_PASSWORD", "hunter22")));
        assertThat(plain.status()).as(plain.toString()).isEqualTo(201);
        assertThat(plain.json().get("warnings"))
                .singleElement()
                .satisfies(w -> assertThat(w.asText())
                        .startsWith("action.env.DB_PASSWORD holds a plain value")
                        .contains("ax secret set db_password"));
    }

    @Test
    void output_stored_before_a_secret_existed_is_masked_when_shown() {
        admin.post("/api/tasks", task("job", Map.of()));
        long id = node.node.tasks().trigger("job", Map.of(), Cause.MANUAL, "admin");
        node.store.tx(tx -> {
            node.store.logs().append(tx, new RunRef(id, 0), "stdout", List.of("pw=" + VALUE, "done"));
            node.store.runs().setMessage(tx, id, "connect failed for " + VALUE);
            return null;
        });

        put("db_password", Map.of("value", VALUE));

        Response json = admin.get("/api/instances/" + id + "/log");
        Response text = admin.getText("/api/instances/" + id + "/log?format=text");
        Response run = admin.get("/api/instances/" + id);
        assertThat(json.json().get("items").get(0).get("text").asText()).isEqualTo("pw=***\ndone");
        assertThat(text.body()).isEqualTo("pw=***\ndone\n");
        assertThat(run.json().get("message").asText()).isEqualTo("connect failed for ***");
        for (Response r : List.of(
                json, text, run, admin.get("/api/instances/" + id + "/events"), admin.get("/api/instances?task=job"))) {
            assertThat(r.body()).doesNotContain(VALUE);
        }
    }

    @Test
    void a_rotation_answers_both_key_ids_and_how_many_secrets_it_sealed_again() {
        put("db_password", Map.of("value", VALUE));
        String before = node.node.secrets().keyId();

        Response r = admin.post("/api/secrets/rotate-key", Map.of());

        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        JsonNode body = r.json();
        assertThat(body.get("previousKeyId").asText()).isEqualTo(before);
        assertThat(body.get("keyId").asText())
                .isEqualTo(node.node.secrets().keyId())
                .isNotEqualTo(before);
        assertThat(body.get("secrets").asInt()).isEqualTo(1);
        assertThat(admin.get("/api/secrets")
                        .json()
                        .get("items")
                        .get(0)
                        .get("keyId")
                        .asText())
                .isEqualTo(body.get("keyId").asText());
    }
}
