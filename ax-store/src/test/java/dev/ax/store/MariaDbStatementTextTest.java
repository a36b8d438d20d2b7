package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The statement text AX sends MariaDB: "now" in UTC. */
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
}
