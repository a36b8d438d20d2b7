package dev.ax.store;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Refuses to run on a schema that lacks a uniqueness guarantee AX relies on. Exactly-once per
 * slot is a unique index, not a hope: if someone dropped it (or a migration went wrong), a
 * server must not start and quietly fire duplicates.
 */
public final class SchemaGuard {
    /** table -> the columns of a unique index it must have. */
    static final Map<String, List<String>> REQUIRED = new LinkedHashMap<>();

    static {
        REQUIRED.put("ax_instance", List.of("task_id", "fire_key"));
        REQUIRED.put("ax_task", List.of("name"));
        REQUIRED.put("ax_token", List.of("token_hash"));
        REQUIRED.put("ax_workflow_run", List.of("workflow_id", "fire_key"));
        REQUIRED.put("ax_trigger_key", List.of("task_id", "idem_key"));
    }

    private SchemaGuard() {}

    public static void check(Database db) {
        try (Connection c = db.dataSource().getConnection()) {
            // MariaDB's driver reads the indexes of every database on the server when given no catalog.
            String catalog = db.dialect() == Dialect.MARIADB ? c.getCatalog() : null;
            for (Map.Entry<String, List<String>> req : REQUIRED.entrySet()) {
                if (!hasUniqueIndex(c.getMetaData(), catalog, req.getKey(), req.getValue())) {
                    throw new StoreException(
                            "the database schema lacks the unique index on " + req.getKey() + req.getValue()
                                    + " that AX relies on for exactly-once firing; refusing to start. Restore it (see the V1 migration).");
                }
            }
        } catch (SQLException e) {
            throw new StoreException("cannot read the database schema: " + e.getMessage(), e);
        }
    }

    static boolean hasUniqueIndex(DatabaseMetaData md, String catalog, String table, List<String> columns)
            throws SQLException {
        Map<String, List<String>> indexes = new LinkedHashMap<>();
        for (String name : List.of(table, table.toUpperCase(Locale.ROOT))) {
            try (ResultSet rs = md.getIndexInfo(catalog, null, name, true, false)) {
                while (rs.next()) {
                    String index = rs.getString("INDEX_NAME");
                    String column = rs.getString("COLUMN_NAME");
                    if (index != null && column != null) {
                        indexes.computeIfAbsent(index, k -> new ArrayList<>()).add(column.toLowerCase(Locale.ROOT));
                    }
                }
            }
        }
        return indexes.values().stream().anyMatch(cols -> cols.size() == columns.size() && cols.containsAll(columns));
    }
}
