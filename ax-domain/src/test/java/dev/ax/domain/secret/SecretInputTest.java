package dev.ax.domain.secret;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.task.ValidationException;
import org.junit.jupiter.api.Test;

/** What a secret's name and value may be, each refusal naming its field. */
class SecretInputTest {
    @Test
    void names_are_what_a_template_can_spell() {
        assertThat(SecretInput.name("db_password")).isEqualTo("db_password");
        assertThat(SecretInput.name("prod.api-token_2")).isEqualTo("prod.api-token_2");
        assertThat(SecretInput.name("x".repeat(100))).hasSize(100);
        for (String bad : new String[] {"", "has space", "semi;colon", "x".repeat(101), "ümlaut", "a/b"}) {
            assertThatThrownBy(() -> SecretInput.name(bad))
                    .as(bad)
                    .isInstanceOfSatisfying(
                            ValidationException.class,
                            e -> assertThat(e.errors())
                                    .singleElement()
                                    .satisfies(f -> assertThat(f.field()).isEqualTo("name")));
        }
        assertThatThrownBy(() -> SecretInput.name(null)).isInstanceOf(ValidationException.class);
    }

    @Test
    void values_take_four_characters_to_64_kib_without_nul() {
        assertThat(SecretInput.value("s3cr")).isEqualTo("s3cr");
        assertThat(SecretInput.value("x".repeat(64 * 1024))).hasSize(64 * 1024);

        assertRefused(null, "is required");
        assertRefused(42, "must be a string");
        assertRefused("", "at least 4 characters");
        assertRefused("abc", "could not be masked");
        assertRefused("ab\ncd", "at least 4 characters");
        assertRefused("abcd\0efg", "NUL");
        assertRefused("x".repeat(64 * 1024 + 1), "65537 bytes");
        assertRefused("é".repeat(32 * 1024 + 1), "65538 bytes");
    }

    private static void assertRefused(Object value, String reason) {
        assertThatThrownBy(() -> SecretInput.value(value))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors()).singleElement().satisfies(f -> {
                            assertThat(f.field()).isEqualTo("value");
                            assertThat(f.reason()).contains(reason);
                        }));
    }
}
