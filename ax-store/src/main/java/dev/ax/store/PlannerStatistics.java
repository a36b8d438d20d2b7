package dev.ax.store;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps PostgreSQL's planner statistics of AX's tables from describing an empty table while the
 * table fills up.
 *
 * <p>AX's hot statements are prepared once per connection, and PostgreSQL keeps a prepared
 * statement's generic plan until the statistics of a table it reads change. A table nobody has
 * analyzed yet is planned as if it had ten pages: on a new database a grouped success planned in
 * its first seconds joins its runs to the whole run table by a sequential scan, and keeps
 * doing so for as long as the connection lives, while the table grows by thousands of runs a
 * second (seen: two thirds of PostgreSQL's time under the HTTP workload, half the throughput).
 * Autovacuum analyzes such a table only on its next round, up to a minute later and then only
 * after a tenth of the table changed. So while a table's statistics know of fewer than
 * {@value #SMALL} rows, it is analyzed here whenever it changed by at least {@value #MIN_CHANGES}
 * rows and by more rows than it held at its last analyze (at most 1,000, 2,000, 4,000, 8,000 and
 * 16,000 rows; the housekeeping loop looks every two seconds), and cached plans are made again each
 * time. Past that, a plan made with the
 * statistics looks runs up by index, and autovacuum keeps the statistics: analyzing a large table
 * costs seconds of a backend (seen at 10,000 runs a second), which is not spent here.
 *
 * <p>{@code SKIP_LOCKED}: when another node is analyzing the table already, this one does not wait.
 * H2 keeps its own statistics (it analyzes a table after a number of changes); nothing to do there.
 */
public final class PlannerStatistics {
    private static final Logger log = LoggerFactory.getLogger(PlannerStatistics.class);
    public static final long MIN_CHANGES = 1_000;
    public static final long SMALL = 10_000;

    private final Database db;

    PlannerStatistics(Database db) {
        this.db = db;
    }

    /** Analyzes the tables whose statistics are stale by the rule above; returns their names. */
    public List<String> refresh() {
        return db.dialect() == Dialect.POSTGRES ? db.tx(this::refresh) : List.of();
    }

    private List<String> refresh(Tx tx) {
        record Stale(String table, long changes, long rowsAtLastAnalyze) {}
        // reltuples is -1 for a table never analyzed, so any MIN_CHANGES changes qualify it. Only tables this user may
        // analyze (its own, as when AX created them): another owner's would be skipped with a warning at every tick.
        List<Stale> stale = tx.query(
                "SELECT s.relname, s.n_mod_since_analyze, CAST(c.reltuples AS BIGINT) AS reltuples FROM pg_stat_user_tables s"
                        + " JOIN pg_class c ON c.oid = s.relid WHERE s.schemaname = current_schema() AND s.relname LIKE 'ax\\_%'"
                        + " AND pg_has_role(c.relowner, 'USAGE') AND c.reltuples < ? AND s.n_mod_since_analyze >= ?"
                        + " AND s.n_mod_since_analyze > c.reltuples ORDER BY s.relname",
                r -> new Stale(r.str("relname"), r.lng("n_mod_since_analyze"), r.lng("reltuples")), SMALL, MIN_CHANGES);
        List<String> analyzed = new ArrayList<>();
        for (Stale s : stale) {
            tx.update("ANALYZE (SKIP_LOCKED) \"" + s.table().replace("\"", "\"\"") + "\"");
            log.info(
                    "analyzed {}: {} rows changed since its statistics were taken ({})",
                    s.table(),
                    s.changes(),
                    s.rowsAtLastAnalyze() < 0 ? "never before" : "then " + s.rowsAtLastAnalyze() + " rows");
            analyzed.add(s.table());
        }
        return analyzed;
    }
}
