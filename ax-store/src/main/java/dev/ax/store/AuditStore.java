package dev.ax.store;

import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The audit log (V38): one row per action, newest first when read. Rows are only ever added. */
public final class AuditStore {
    private static final String COLUMNS =
            "id, at, actor, via, team, address, action, target, outcome, status, message, diff";

    /** One action: who, how they proved it, for which team, from where, what on which target, how it ended. */
    public record Entry(
            String actor,
            String via,
            String team,
            String address,
            String action,
            String target,
            String outcome,
            int status,
            String message,
            String diff) {}

    public record AuditRow(long id, Instant at, Entry entry) {}

    /** What to list: each null is no filter; {@code from} inclusive, {@code to} exclusive; ids below {@code beforeId}. */
    public record Filter(
            String actor, String team, String target, Instant from, Instant to, long beforeId, int limit) {}

    /** Writes entries, one row each, stamped with the database's time. */
    public void add(Tx tx, List<Entry> entries) {
        List<Object[]> rows = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            rows.add(new Object[] {
                e.actor(),
                e.via(),
                e.team(),
                e.address(),
                e.action(),
                e.target(),
                e.outcome(),
                e.status(),
                e.message(),
                e.diff()
            });
        }
        tx.batch(
                "INSERT INTO ax_audit (at, actor, via, team, address, action, target, outcome, status, message, diff)"
                        + " VALUES (CURRENT_TIMESTAMP, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows);
    }

    /** Newest first. {@code target} matches the whole target or its kind ({@code task:} matches every task). */
    public List<AuditRow> list(Tx tx, Filter f) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM ax_audit WHERE id < ?");
        List<Object> args = new ArrayList<>(List.of(f.beforeId()));
        if (f.actor() != null) {
            sql.append(" AND actor = ?");
            args.add(f.actor());
        }
        if (f.team() != null) {
            sql.append(" AND team = ?");
            args.add(f.team());
        }
        if (f.target() != null) {
            if (f.target().endsWith(":")) {
                sql.append(" AND target LIKE ?");
                args.add(f.target().replace("%", "\\%").replace("_", "\\_") + "%");
            } else {
                sql.append(" AND target = ?");
                args.add(f.target());
            }
        }
        if (f.from() != null) {
            sql.append(" AND at >= ?");
            args.add(f.from());
        }
        if (f.to() != null) {
            sql.append(" AND at < ?");
            args.add(f.to());
        }
        sql.append(" ORDER BY id DESC LIMIT ").append(f.limit());
        return tx.query(sql.toString(), AuditStore::map, args.toArray());
    }

    private static AuditRow map(Tx.Row r) throws SQLException {
        return new AuditRow(
                r.lng("id"),
                r.instant("at"),
                new Entry(
                        r.str("actor"),
                        r.str("via"),
                        r.str("team"),
                        r.str("address"),
                        r.str("action"),
                        r.str("target"),
                        r.str("outcome"),
                        r.integer("status"),
                        r.str("message"),
                        r.str("diff")));
    }
}
