-- Alerts (ax-alerts). The pipeline tails ax_event from a cursor and writes an outbox; delivery
-- happens outside any transaction. The H2 twin (../h2/V20__alerts.sql) differs only where the dialects do.

-- Where the tail has got to in ax_event: one row, locked FOR UPDATE SKIP LOCKED by the one node
-- that advances it at a time. Starts at the current end of the log: history is not alerted.
CREATE TABLE ax_alert_cursor (
    id             INT PRIMARY KEY,
    last_event_id  BIGINT NOT NULL,
    updated_at     TIMESTAMP WITH TIME ZONE NOT NULL
);
INSERT INTO ax_alert_cursor (id, last_event_id, updated_at)
    SELECT 1, COALESCE(MAX(id), 0), CURRENT_TIMESTAMP FROM ax_event;

-- The outbox: one row per alert per channel. The unique (channel, dedupe_key) is what makes
-- "one alert per instance outcome" hold across nodes, crashes and re-reads of the event log.
-- state: PENDING (to send), SENT, FAILED (gave up), COLLAPSED (folded into storm summary summary_id).
CREATE TABLE ax_alert (
    id           BIGSERIAL PRIMARY KEY,
    channel      VARCHAR(100) NOT NULL,
    dedupe_key   VARCHAR(300) NOT NULL,
    kind         VARCHAR(32) NOT NULL,
    task_id      BIGINT,
    task_name    VARCHAR(100),
    instance_id  BIGINT,
    content      TEXT NOT NULL,
    state        VARCHAR(10) NOT NULL,
    attempts     INT NOT NULL DEFAULT 0,
    next_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    last_error   TEXT,
    summary_id   BIGINT,
    created_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    sent_at      TIMESTAMP WITH TIME ZONE,
    CONSTRAINT ax_alert_once UNIQUE (channel, dedupe_key)
);
CREATE INDEX ax_alert_pending ON ax_alert (next_at, id) WHERE state = 'PENDING';
-- Storm control counts a channel's alerts of the last minute.
CREATE INDEX ax_alert_recent ON ax_alert (channel, created_at);
CREATE INDEX ax_alert_summary ON ax_alert (summary_id) WHERE summary_id IS NOT NULL;

-- Anomalies already reported (a slot run twice, a slot missed, a run far too long): each once.
CREATE TABLE ax_anomaly (
    anomaly_key  VARCHAR(300) PRIMARY KEY,
    kind         VARCHAR(32) NOT NULL,
    task_id      BIGINT,
    detail       TEXT,
    seen_at      TIMESTAMP WITH TIME ZONE NOT NULL
);

-- Watchdog checks, failing or not: the conditional flip of this row decides which node raises
-- the alert (once) and the recovery (once).
CREATE TABLE ax_watch_check (
    check_key   VARCHAR(200) PRIMARY KEY,
    failing     BOOLEAN NOT NULL,
    since       TIMESTAMP WITH TIME ZONE NOT NULL,
    detail      TEXT,
    node_id     VARCHAR(100) NOT NULL,
    updated_at  TIMESTAMP WITH TIME ZONE NOT NULL
);

-- Anomaly detection compares a task's scheduled runs in a window with its slots.
CREATE INDEX ax_instance_task_slot ON ax_instance (task_id, scheduled_at);
