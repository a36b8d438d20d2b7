package dev.ax.domain.task;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.task.SecretFields.Use;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where a task uses secrets, and which of its fields keep a credential in plain text. */
class SecretFieldsTest {
    static TaskDefinition task(Map<String, Object> action, Map<String, Object> policy) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("taskName", "t");
        json.put("trigger", Map.of("type", "event"));
        json.put("action", action);
        if (policy != null) {
            json.put("policy", policy);
        }
        return TaskDefinitionCodec.parse(json, Set.of()).definition();
    }

    static Map<String, Object> shell(Map<String, String> env) {
        return Map.of("type", "shell", "command", "./run.sh", "env", env);
    }

    @Test
    void lists_each_use_with_the_field_it_stands_in() {
        TaskDefinition http = task(
                Map.of(
                        "type",
                        "http",
                        "method",
                        "POST",
                        "url",
                        "{{secret.hook}}",
                        "headers",
                        Map.of("Authorization", "Bearer {{ secret.api_token }}"),
                        "body",
                        Map.of("auth", Map.of("keys", List.of("{{secret.k1}}")))),
                null);

        assertThat(SecretFields.uses(http))
                .containsExactlyInAnyOrder(
                        new Use("action.url", "hook"),
                        new Use("action.headers.Authorization", "api_token"),
                        new Use("action.body.auth.keys[0]", "k1"));
    }

    @Test
    void uses_in_an_approval_preview_are_listed_under_it() {
        TaskDefinition def = task(
                shell(Map.of("DB_PASSWORD", "{{secret.db_password}}")),
                Map.of("approval", Map.of("preview", shell(Map.of("RO_PASSWORD", "{{secret.ro_password}}")))));

        assertThat(SecretFields.uses(def))
                .containsExactly(
                        new Use("action.env.DB_PASSWORD", "db_password"),
                        new Use("policy.approval.preview.env.RO_PASSWORD", "ro_password"));
    }

    @Test
    void names_that_say_they_hold_a_credential_look_secret() {
        for (String name : List.of(
                "DB_PASSWORD",
                "mysql_passwd",
                "GITHUB_TOKEN",
                "client_secret",
                "X-Api-Key",
                "AWS_CREDENTIALS",
                "Authorization",
                "authorization")) {
            assertThat(SecretFields.looksSecret(name)).as(name).isTrue();
        }
        for (String name : List.of("HOME", "PATH", "Content-Type", "X-Request-ID", "REGION")) {
            assertThat(SecretFields.looksSecret(name)).as(name).isFalse();
        }
    }

    @Test
    void a_value_is_wholly_secret_when_only_references_and_a_scheme_remain() {
        assertThat(SecretFields.isWhollySecret("{{secret.db_password}}")).isTrue();
        assertThat(SecretFields.isWhollySecret("{{ secret.db_password }}")).isTrue();
        assertThat(SecretFields.isWhollySecret("Bearer {{secret.api_token}}")).isTrue();
        assertThat(SecretFields.isWhollySecret("hunter22")).isFalse();
        assertThat(SecretFields.isWhollySecret("{{params.password}}")).isFalse();
        assertThat(SecretFields.isWhollySecret("{{secret.user}}:hunter22")).isFalse();
        assertThat(SecretFields.isWhollySecret("Bearer abc.def")).isFalse();
    }

    @Test
    void a_plain_credential_is_saved_with_a_warning_naming_the_field_and_ax_secret_set() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("taskName", "t");
        json.put("trigger", Map.of("type", "event"));
        json.put(
                "action",
                shell(Map.of(
                        "DB_PASSWORD", "hunter22", "DB_HOST", "db.internal", "API_TOKEN", "{{secret.api_token}}")));

        ParsedTask parsed = TaskDefinitionCodec.parse(json, Set.of());

        assertThat(parsed.warnings())
                .singleElement()
                .asString()
                .startsWith("action.env.DB_PASSWORD holds a plain value")
                .contains("ax secret set db_password")
                .contains("{{secret.db_password}}")
                .doesNotContain("hunter22");
    }

    @Test
    void a_plain_authorization_header_is_warned_about_with_its_scheme() {
        TaskDefinition def = task(
                Map.of(
                        "type",
                        "http",
                        "url",
                        "https://api.example.com/x",
                        "headers",
                        Map.of("Authorization", "Bearer abc123", "X-Trace", "1")),
                null);

        assertThat(SecretFields.warnings(def))
                .singleElement()
                .asString()
                .startsWith("action.headers.Authorization holds a plain value")
                .contains("\"Bearer {{secret.authorization}}\"");
    }
}
