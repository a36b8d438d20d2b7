package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Upgrading: the first node of a new version migrates; a node older than the schema refuses to start. */
class SchemaVersionTest {
    @Test
    void an_older_node_refuses_a_schema_a_newer_one_migrated_and_says_what_to_do() {
        DbConfig config = TestDatabases.h2();
        try (Store first = Store.open(config)) {
            // What a newer AX leaves behind: one migration this build does not have.
            first.tx(tx -> tx.update(
                    "INSERT INTO ax_schema_history (installed_rank, version, description, type, script, checksum,"
                            + " installed_by, installed_on, execution_time, success)"
                            + " SELECT MAX(installed_rank) + 1, '999', 'from a newer AX', 'SQL', 'V999__from_a_newer_ax.sql',"
                            + " 0, 'ax', CURRENT_TIMESTAMP, 1, TRUE FROM ax_schema_history"));
            assertThatThrownBy(() -> Store.open(config).close())
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("schema is at V999")
                    .hasMessageMatching("(?s).*newer than this AX knows \\(V\\d+\\).*")
                    .hasMessageContaining("Run that version");
        }
    }

    @Test
    void a_node_of_the_same_version_opens_the_schema_again() {
        DbConfig config = TestDatabases.h2();
        try (Store first = Store.open(config);
                Store second = Store.open(config)) {
            java.util.Optional<Long> tasks =
                    second.tx(tx -> tx.queryOne("SELECT COUNT(*) AS n FROM ax_task", r -> r.lng("n")));
            assertThat(tasks).contains(0L);
        }
    }
}
