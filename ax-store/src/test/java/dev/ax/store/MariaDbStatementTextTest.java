package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The statement text AX sends MariaDB: "now" in UTC, and IN lists whose text is one of a few. */
class MariaDbStatementTextTest {
    @Test
    void current_timestamp_becomes_utc_where_it_is_a_word_and_not_a_call() {
        String[][] cases = {
            {"SELECT 1", "SELECT 1"},
            {"SELECT CURRENT_TIMESTAMP", "SELECT UTC_TIMESTAMP(6)"},
            {
                "SET a = CURRENT_TIMESTAMP, b = CURRENT_TIMESTAMP WHERE c < CURRENT_TIMESTAMP",
                "SET a = UTC_TIMESTAMP(6), b = UTC_TIMESTAMP(6) WHERE c < UTC_TIMESTAMP(6)"
            },
            {"(CURRENT_TIMESTAMP)", "(UTC_TIMESTAMP(6))"},
            {"CURRENT_TIMESTAMP(3)", "CURRENT_TIMESTAMP(3)"},
            {"CURRENT_TIMESTAMP (3)", "CURRENT_TIMESTAMP (3)"},
            {"MY_CURRENT_TIMESTAMP, CURRENT_TIMESTAMPS", "MY_CURRENT_TIMESTAMP, CURRENT_TIMESTAMPS"},
            {"x = CURRENT_TIMESTAMP", "x = UTC_TIMESTAMP(6)"},
        };
        for (String[] c : cases) {
            assertThat(Dialect.MARIADB.sql(c[0])).as(c[0]).isEqualTo(c[1]);
            assertThat(Dialect.POSTGRES.sql(c[0])).as(c[0]).isEqualTo(c[0]);
        }
    }

    @Test
    void an_in_list_repeats_its_last_value_up_to_a_power_of_two() {
        assertThat(ReturnlessBatches.padded(List.of(7L))).containsExactly(7L);
        assertThat(ReturnlessBatches.padded(List.of(1L, 2L))).containsExactly(1L, 2L);
        assertThat(ReturnlessBatches.padded(List.of(1L, 2L, 3L))).containsExactly(1L, 2L, 3L, 3L);
        assertThat(ReturnlessBatches.padded(List.of("a", "b", "c", "d", "e")))
                .hasSize(8)
                .endsWith("e", "e", "e", "e");
    }
}
