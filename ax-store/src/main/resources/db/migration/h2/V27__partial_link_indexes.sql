-- See ../postgresql/V27__partial_link_indexes.sql: PostgreSQL only (H2 has no partial indexes).
SELECT 1;
