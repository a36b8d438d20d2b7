package dev.ax.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.access.Grants;
import dev.ax.domain.access.Role;
import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.ValidationException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The --oidc-config file: what it must say, and how a person's groups become AX roles. */
class SsoConfigTest {
    static Map<String, Object> valid() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("issuer", "https://login.example.com/realms/corp");
        m.put("clientId", "ax");
        m.put("clientSecret", "s3cret");
        m.put("redirectUri", "https://ax.example.com/login/sso/callback");
        m.put(
                "roles",
                List.of(
                        Map.of("group", "ax-admins", "role", "admin"),
                        Map.of("group", "data-eng", "team", "data", "role", "operator"),
                        Map.of("group", "data-leads", "team", "data", "role", "admin"),
                        Map.of("group", "ops", "role", "operator")));
        return m;
    }

    @Test
    void groups_map_to_the_highest_role_everywhere_and_per_team() {
        SsoConfig c = SsoConfig.parse(valid(), null);
        assertThat(c.grantsFor(List.of("data-eng")))
                .contains(new Grants(Role.VIEWER, Map.of("data", Role.OPERATOR), List.of()));
        assertThat(c.grantsFor(List.of("data-eng", "data-leads", "ops")))
                .contains(new Grants(Role.OPERATOR, Map.of("data", Role.ADMIN), List.of()));
        assertThat(c.grantsFor(List.of("ax-admins"))).contains(Grants.of(Role.ADMIN));
        assertThat(c.grantsFor(List.of("marketing")))
                .as("no rule, no default role: not let in")
                .isEmpty();
        assertThat(c.sessionLifetime()).isEqualTo(Duration.ofHours(12));
        assertThat(c.usernameClaim()).isEqualTo("preferred_username");
        assertThat(c.scopes()).containsExactly("openid", "profile", "email");
        assertThat(c.toString()).doesNotContain("s3cret");
    }

    @Test
    void a_default_role_lets_in_everyone_the_provider_signs_in() {
        Map<String, Object> m = valid();
        m.put("defaultRole", "viewer");
        assertThat(SsoConfig.parse(m, null).grantsFor(List.of())).contains(Grants.of(Role.VIEWER));
    }

    @Test
    void the_client_secret_may_come_from_the_environment() {
        Map<String, Object> m = valid();
        m.remove("clientSecret");
        assertThat(SsoConfig.parse(m, "from-env").clientSecret()).isEqualTo("from-env");
        assertThatThrownBy(() -> SsoConfig.parse(m, null))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .extracting(FieldError::field)
                                .containsExactly("clientSecret"));
    }

    @Test
    void every_mistake_is_named_with_its_field() {
        Map<String, Object> m = valid();
        m.put("issuer", "login.example.com");
        m.put("redirectUri", "https://ax.example.com/elsewhere");
        m.put(
                "roles",
                List.of(
                        Map.of("group", "x", "role", "root"),
                        Map.of("role", "admin"),
                        Map.of("group", "y", "team", "a b", "role", "viewer")));
        m.put("sessionLifetime", "forever");
        m.put("colour", "blue");
        assertThatThrownBy(() -> SsoConfig.parse(m, null))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .extracting(FieldError::field)
                                .containsExactlyInAnyOrder(
                                        "colour",
                                        "issuer",
                                        "redirectUri",
                                        "roles[0].role",
                                        "roles[1].group",
                                        "roles[2].team",
                                        "sessionLifetime"));
    }
}
