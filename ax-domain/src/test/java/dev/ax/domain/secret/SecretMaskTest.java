package dev.ax.domain.secret;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Values of secrets become *** in text; values too short to mask, and nulls, are left out. */
class SecretMaskTest {
    @Test
    void replaces_every_occurrence_of_every_value() {
        SecretMask mask = SecretMask.of(List.of("hunter22", "tok-9f8e"));

        assertThat(mask.apply("pw=hunter22 token=tok-9f8e again hunter22")).isEqualTo("pw=*** token=*** again ***");
        assertThat(mask.apply("nothing secret")).isEqualTo("nothing secret");
        assertThat(mask.apply((String) null)).isNull();
    }

    @Test
    void a_value_holding_another_is_masked_whole() {
        SecretMask mask = SecretMask.of(List.of("abcd", "abcdefgh"));

        assertThat(mask.apply("x abcdefgh y abcd")).isEqualTo("x *** y ***");
    }

    @Test
    void a_multi_line_value_is_masked_line_by_line_as_output_arrives() {
        String pem =
                "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\r\nBKcwggSjAgEAAoIBAQC7\n=\n-----END PRIVATE KEY-----\n";
        SecretMask mask = SecretMask.of(List.of(pem));

        assertThat(mask.apply(List.of(
                        "-----BEGIN PRIVATE KEY-----",
                        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
                        "BKcwggSjAgEAAoIBAQC7",
                        "=",
                        "-----END PRIVATE KEY-----")))
                .containsExactly("***", "***", "***", "=", "***");
        assertThat(mask.apply(pem)).isEqualTo("***\n***\r\n***\n=\n***\n");
        assertThat(mask.longest()).isEqualTo("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC".length());
    }

    @Test
    void values_shorter_than_four_characters_and_nulls_are_not_masked() {
        SecretMask mask = SecretMask.of(Arrays.asList("abc", null, ""));

        assertThat(mask.isEmpty()).isTrue();
        assertThat(mask).isSameAs(SecretMask.NONE);
        assertThat(mask.apply("abc abc")).isEqualTo("abc abc");
    }

    @Test
    void unchanged_lines_come_back_as_the_same_list() {
        SecretMask mask = SecretMask.of(List.of("hunter22"));
        List<String> lines = List.of("a", "b");

        assertThat(mask.apply(lines)).isSameAs(lines);
        assertThat(mask.apply(List.of("a", "b hunter22", "c"))).containsExactly("a", "b ***", "c");
    }

    @Test
    void says_how_many_values_it_masks_never_which() {
        assertThat(SecretMask.of(List.of("hunter22")).toString())
                .isEqualTo("SecretMask[1 values]")
                .doesNotContain("hunter");
    }
}
