-- Run output in a table partitioned by the day a chunk was written (UTC). Expired output goes a day at a
-- time, by detaching and dropping that day's partition (scheduler's Retention, store's HistoryPartitions),
-- instead of row by row; AX makes each day's partition a week ahead.
--
-- The existing table becomes the partition of everything before the cut-over (V41). Its constraint, proven
-- by V42, lets ATTACH skip the scan, so every step here takes a moment whatever the table holds. Its primary
-- key on id stays; each new partition has its own. The parent has none: PostgreSQL wants the partition key
-- in a unique key over partitions, and ids come from one sequence.
ALTER TABLE ax_log RENAME TO ax_log_legacy;
ALTER INDEX ax_log_instance RENAME TO ax_log_legacy_instance;

CREATE TABLE ax_log (LIKE ax_log_legacy INCLUDING DEFAULTS) PARTITION BY RANGE (at);
-- The sequence belongs to the parent: dropping the first partition must not take it along.
ALTER SEQUENCE ax_log_id_seq OWNED BY ax_log.id;
CREATE INDEX ax_log_instance ON ax_log (instance_id, id);

DO $$
DECLARE
    cutover TIMESTAMP WITH TIME ZONE := (SELECT at FROM ax_log_cutover);
    day TIMESTAMP WITH TIME ZONE;
    name TEXT;
BEGIN
    EXECUTE format('ALTER TABLE ax_log ATTACH PARTITION ax_log_legacy FOR VALUES FROM (MINVALUE) TO (%L)', cutover);
    -- The first week of days; from then on the scheduler keeps a week ahead.
    FOR i IN 0..7 LOOP
        day := cutover + make_interval(days => i);
        name := 'ax_log_' || to_char(day AT TIME ZONE 'UTC', 'YYYYMMDD');
        EXECUTE format('CREATE TABLE %I (LIKE ax_log INCLUDING DEFAULTS)', name);
        EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (id)', name);
        EXECUTE format('ALTER TABLE ax_log ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                       name, day, day + INTERVAL '1 day');
    END LOOP;
END
$$;

ALTER TABLE ax_log_legacy DROP CONSTRAINT ax_log_before_cutover;
DROP TABLE ax_log_cutover;
