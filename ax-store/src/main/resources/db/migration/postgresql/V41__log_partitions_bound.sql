-- Run output moves into a table partitioned by day (V43; docs/architecture.md, "History and retention").
-- The chunks already written become its first partition, holding everything before a cut-over day. For
-- that to take no scan under an exclusive lock, the table first promises it holds nothing from the cut-over
-- on: a CHECK constraint added NOT VALID (a moment's lock, checking no existing row) and validated in the
-- next migration, which reads the table without stopping its writers.
--
-- The cut-over is midnight UTC the day after tomorrow, so that the chunks written while the validation reads
-- a large table still fall before it; it is remembered for V43 in a table of one row.
CREATE TABLE ax_log_cutover (at TIMESTAMP WITH TIME ZONE NOT NULL);
INSERT INTO ax_log_cutover (at) SELECT date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + INTERVAL '2 days';

DO $$
BEGIN
    EXECUTE format('ALTER TABLE ax_log ADD CONSTRAINT ax_log_before_cutover CHECK (at < %L) NOT VALID',
                   (SELECT at FROM ax_log_cutover));
END
$$;
