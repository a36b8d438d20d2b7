package dev.ax.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.run.EventType;
import dev.ax.domain.schedule.IntervalSchedule;
import dev.ax.store.ClockBoundaries;
import dev.ax.store.DbConfig;
import dev.ax.store.EventRow;
import dev.ax.store.NewEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The alert pipeline, anomaly detection, the watchdog and run-log upkeep on a real database (H2 and PostgreSQL). */
abstract class AlertsContractTest {
    Rig rig;

    abstract DbConfig db();

    Rig rig(Function<String, AlertsConfig> config) {
        rig = new Rig(db(), config);
        return rig;
    }

    @AfterEach
    void close() {
        if (rig != null) {
            rig.close();
        }
    }

    static Map<String, Object> event() {
        return Map.of("type", "event");
    }

    // ---- run alerts ---------------------------------------------------------------------------

    @Test
    void a_final_failure_is_alerted_once_with_the_log_tail_and_its_delivery_is_an_event() {
        Rig r = rig(Rig::hookConfig);
        r.task("daily_report", event(), Map.of("notifyOnFailure", List.of("hook")));
        long id = r.trigger("daily_report");
        r.finish(id, false, "loading 42 rows", "boom: disk full");
        r.pump();

        assertThat(r.received).hasSize(1);
        String body = r.received.getFirst();
        assertThat(body)
                .contains(
                        "\"kind\":\"RUN_FAILED\"",
                        "daily_report #" + id + " failed",
                        "boom: disk full",
                        "ax run retry " + id,
                        "http://console.test/runs/" + id,
                        "#" + id + " manual by alice");
        assertThat(types(r, id)).contains(EventType.ALERT_SENT);

        // Reading the whole event log again writes nothing new: one alert per run outcome.
        r.store.tx(tx -> tx.update("UPDATE ax_alert_cursor SET last_event_id = 0"));
        r.pump();
        assertThat(r.received).hasSize(1);
        assertThat(r.alerts.loopErrors()).isZero();
    }

    @Test
    void a_failure_that_is_retried_is_alerted_only_when_the_last_attempt_fails() {
        Rig r = rig(Rig::hookConfig);
        r.task(
                "flaky",
                event(),
                Map.of("notifyOnFailure", List.of("hook"), "maxRetries", 1, "retryIntervalSeconds", 0));
        long id = r.trigger("flaky");
        r.finish(id, false, "first try");
        r.pump();
        assertThat(r.received).isEmpty();

        await().atMost(Duration.ofSeconds(5)).until(() -> r.node.housekeeping().promoteRetries() > 0);
        r.finish(id, false, "second try");
        r.pump();
        assertThat(r.received).hasSize(1);
        assertThat(r.received.getFirst()).contains("2 of 2", "second try").doesNotContain("first try");
    }

    @Test
    void a_task_that_names_no_channel_is_not_alerted() {
        Rig r = rig(Rig::hookConfig);
        r.task("quiet", event(), Map.of());
        r.finish(r.trigger("quiet"), false, "nobody hears this");
        r.pump();
        assertThat(r.received).isEmpty();
        assertThat(r.alerts.recent(10)).isEmpty();
    }

    @Test
    void a_success_after_failures_is_a_recovery_notice_when_the_task_opts_in() {
        Rig r = rig(Rig::hookConfig);
        r.task("daily_report", event(), Map.of("notifyOnFailure", List.of("hook"), "notifyOnSuccess", "RECOVERY"));
        r.finish(r.trigger("daily_report"), false);
        r.finish(r.trigger("daily_report"), false);
        long ok = r.trigger("daily_report");
        r.finish(ok, true);
        r.finish(r.trigger("daily_report"), true);
        r.pump();

        assertThat(r.alertsOf("RUN_FAILED")).hasSize(2);
        assertThat(r.alertsOf("RUN_RECOVERED"))
                .singleElement()
                .satisfies(a ->
                        assertThat(a.title()).isEqualTo("daily_report succeeded again after 2 failures (#" + ok + ")"));
    }

    @Test
    void a_storm_is_collapsed_into_one_summary() {
        Rig r = rig(url -> new AlertsConfig(
                Map.of("hook", new ChannelConfig.Webhook(url, Map.of())),
                null,
                null,
                3,
                AlertsConfig.Pipeline.DEFAULT,
                null,
                null,
                null));
        r.task("noisy", event(), Map.of("notifyOnFailure", List.of("hook"), "maxConcurrency", 10, "overflow", "ALLOW"));
        // The summary is due when its minute ends: start well inside a minute, or it is sent by the first pump.
        ClockBoundaries.awaitClearOfMinuteEnd(r.store, Duration.ofSeconds(10));
        for (int i = 0; i < 7; i++) {
            r.finish(r.trigger("noisy"), false);
        }
        r.pump();
        assertThat(r.received).hasSize(3);
        assertThat(r.alerts.recent(100).stream().filter(a -> a.state().equals("COLLAPSED")))
                .hasSize(4);

        // The summary goes out when its minute is over; the test does not wait for the clock.
        r.store.tx(tx -> tx.update("UPDATE ax_alert SET next_at = CURRENT_TIMESTAMP WHERE kind = 'STORM_SUMMARY'"));
        r.pump();
        assertThat(r.received).hasSize(4);
        assertThat(r.received.getLast())
                .contains("STORM_SUMMARY", "4 more alerts for hook within one minute", "noisy #");
    }

    @Test
    void a_failing_channel_is_retried_then_given_up_and_shows_on_health_without_blocking_anything() {
        Rig r = rig(url -> Rig.hookConfig(url)
                .withPipeline(new AlertsConfig.Pipeline(
                        Duration.ofMillis(100),
                        100,
                        Duration.ofSeconds(10),
                        Duration.ofMillis(100),
                        2,
                        Duration.ofMillis(1))));
        r.status.set(500);
        r.task("daily_report", event(), Map.of("notifyOnFailure", List.of("hook")));
        long id = r.trigger("daily_report");
        r.finish(id, false);
        r.alerts.tailTick();
        r.alerts.deliverTick();

        assertThat(messages(r, id, EventType.ALERT_FAILED))
                .singleElement()
                .asString()
                .contains("attempt 1 of 2", "HTTP 500");
        Alerts.Health h = r.alerts.health();
        assertThat(h.status()).isEqualTo("degraded");
        assertThat(h.failing()).isEmpty();
        assertThat(h.channels().get("hook").toString())
                .contains("state=failing", "HTTP 500")
                .doesNotContain("/hook");

        await().atMost(Duration.ofSeconds(5))
                .until(() -> r.alerts.deliverTick() >= 0
                        && messages(r, id, EventType.ALERT_FAILED).size() == 2);
        assertThat(messages(r, id, EventType.ALERT_FAILED).getLast()).contains("given up after 2 attempts");
        assertThat(r.alertsOf("RUN_FAILED"))
                .singleElement()
                .satisfies(a -> assertThat(a.state()).isEqualTo("FAILED"));

        // The scheduler went on all along: the next run is created, claimed and finished as usual.
        long next = r.trigger("daily_report");
        r.finish(next, true);
    }

    @Test
    void the_tail_waits_at_a_hole_in_the_event_ids_then_takes_it_for_a_rollback() {
        // Far longer than writing the events and the first tick take, so that the first tick still finds the hole
        // fresh.
        Rig r = rig(url ->
                Rig.hookConfig(url).withPipeline(AlertsConfig.Pipeline.DEFAULT.withGapWait(Duration.ofSeconds(3))));
        r.pump();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            r.store.tx(tx -> {
                r.store
                        .events()
                        .append(tx, new NewEvent(null, null, EventType.TASK_UPDATED, "test", "n", "e", Map.of()));
                ids.add(tx.queryOne("SELECT MAX(id) AS m FROM ax_event", x -> x.lng("m"))
                        .orElseThrow());
                return null;
            });
        }
        // A transaction that took the middle id and has not committed looks exactly like this.
        r.store.tx(tx -> tx.update("DELETE FROM ax_event WHERE id = ?", ids.get(1)));

        r.alerts.tailTick();
        assertThat(cursor(r)).isEqualTo(ids.get(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            r.alerts.tailTick();
            return cursor(r) == ids.get(2);
        });
    }

    // ---- anomalies ----------------------------------------------------------------------------

    /** A rig whose anomaly checks audit a 10-minute window with a 1 s grace, and call a run long past 3× its usual time. */
    private Rig anomalyRig() {
        return rig(url -> Rig.hookConfig(url)
                .withAnomaly(new AlertsConfig.Anomaly(
                        Duration.ofSeconds(60),
                        Duration.ofMinutes(10),
                        Duration.ofSeconds(1),
                        3,
                        Duration.ofMinutes(1),
                        20)));
    }

    @Test
    void a_slot_run_twice_raises_one_duplicate_execution_alert() {
        Rig r = anomalyRig();
        long task = minutelyTaskWithRuns(r);
        Instant slot = slotsAround(r).get(5);
        // The fault: the unique (task, slot) key is gone, and a second run for one slot gets in.
        r.store.tx(tx -> tx.update("ALTER TABLE ax_instance DROP CONSTRAINT ax_instance_slot_uq"));
        long second = insertRun(r, task, slot, "SUCCESS");
        long first = r.store
                .tx(tx -> tx.queryOne(
                        "SELECT MIN(id) AS id FROM ax_instance WHERE task_id = ? AND scheduled_at = ?",
                        x -> x.lng("id"),
                        task,
                        slot))
                .orElseThrow();

        assertThat(r.alerts.anomalyTick()).isEqualTo(1);
        assertThat(r.alerts.anomalyTick()).isZero(); // reported once
        r.pump();
        assertThat(r.received)
                .singleElement()
                .asString()
                .contains(
                        "DUPLICATE_EXECUTION",
                        "Suspected duplicate execution of minutely",
                        "runs #" + first + ", #" + second);
        assertThat(r.alertsOf("MISSED_EXECUTION")).isEmpty();
    }

    @Test
    void a_slot_without_a_run_raises_a_missed_execution_alert() {
        Rig r = anomalyRig();
        long task = minutelyTaskWithRuns(r);
        Instant slot = slotsAround(r).get(5);
        r.store.tx(tx -> tx.update("DELETE FROM ax_instance WHERE task_id = ? AND scheduled_at = ?", task, slot));

        assertThat(r.alerts.anomalyTick()).isEqualTo(1);
        assertThat(r.alertsOf("MISSED_EXECUTION"))
                .singleElement()
                .satisfies(a -> assertThat(a.text())
                        .contains("minutely missed 1 scheduled run", slot.toString(), "ax trigger minutely"));
        assertThat(r.alerts.anomalyTick()).isZero();
    }

    @Test
    void a_round_audits_the_slots_since_the_last_one_and_still_finds_a_second_run_for_an_older_slot() {
        Rig r = anomalyRig();
        long task = minutelyTaskWithRuns(r);
        assertThat(r.alerts.anomalyTick()).isZero();
        assertThat(r.alerts.anomalyRunsReadLastRound())
                .as("the first round reads the whole window")
                .isBetween(9L, 10L);
        assertThat(r.alerts.anomalyTick()).isZero();
        assertThat(r.alerts.anomalyRunsReadLastRound())
                .as("the next one, the slots since")
                .isLessThanOrEqualTo(1);

        Instant slot = slotsAround(r).get(5);
        r.store.tx(tx -> tx.update("ALTER TABLE ax_instance DROP CONSTRAINT ax_instance_slot_uq"));
        long second = insertRun(r, task, slot, "SUCCESS");
        assertThat(r.alerts.anomalyTick()).isEqualTo(1);
        assertThat(r.alertsOf("DUPLICATE_EXECUTION"))
                .singleElement()
                .satisfies(a -> assertThat(a.text()).contains("#" + second));
        assertThat(r.alerts.anomalyRunsReadLastRound())
                .as("a late run makes the round read the whole window again")
                .isGreaterThan(9);
    }

    /** The audit reads a window's runs by their fire keys; a run under a key that is not its slot's is still counted. */
    @Test
    void a_second_run_for_a_slot_under_a_key_that_is_not_the_slots_is_found_by_the_next_round() {
        Rig r = anomalyRig();
        long task = minutelyTaskWithRuns(r);
        assertThat(r.alerts.anomalyTick()).isZero();
        Instant slot = slotsAround(r).get(5);
        long second = insertRun(r, task, slot, "SUCCESS", "not-a-slot-key");
        assertThat(r.alerts.anomalyTick()).isEqualTo(1);
        assertThat(r.alertsOf("DUPLICATE_EXECUTION"))
                .singleElement()
                .satisfies(a -> assertThat(a.text()).contains("#" + second));
    }

    @Test
    void a_run_far_longer_than_its_recent_successes_is_unusually_long() {
        Rig r = anomalyRig();
        r.task("etl", event(), Map.of("notifyOnFailure", List.of("hook")));
        long task =
                r.store.tx(tx -> r.store.tasks().find(tx, "etl").orElseThrow().id());
        for (int i = 0; i < 6; i++) {
            long id = r.trigger("etl");
            r.finish(id, true);
        }
        long stuck = r.trigger("etl");
        r.node.dispatcher()
                .register(
                        new Register("slow", UUID.randomUUID().toString(), List.of("default"), "t", 1, "t", List.of()));
        r.store.tx(tx -> tx.update(
                "UPDATE ax_instance SET state = 'RUNNING', attempt = 1, executor_id = 'slow', started_at = "
                        + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + " WHERE id = ?",
                -Duration.ofMinutes(10).toMillis(),
                stuck));

        assertThat(r.alerts.anomalyTick()).isEqualTo(1);
        assertThat(r.alertsOf("LONG_RUN")).singleElement().satisfies(a -> {
            assertThat(a.title()).startsWith("etl #" + stuck + " has been running for 10m");
            assertThat(a.text()).contains("ax run terminate " + stuck);
        });
        assertThat(r.alerts.anomalyTick()).isZero();
        assertThat(task).isPositive();
    }

    // ---- watchdog -----------------------------------------------------------------------------

    @Test
    void a_failing_check_alerts_once_and_its_recovery_once() {
        Rig r = rig(url -> Rig.hookConfig(url)
                .withWatch(new AlertsConfig.Watch(
                        Duration.ofSeconds(30),
                        Duration.ofMinutes(1),
                        Duration.ofMinutes(5),
                        Duration.ofMinutes(5),
                        Duration.ofMillis(1))));
        Map<String, Object> json = Map.of(
                "taskName",
                "gpu_job",
                "trigger",
                event(),
                "action",
                Map.of("type", "shell", "command", "true", "group", "gpu"));
        r.node.tasks().create(json, "test");
        r.trigger("gpu_job");

        await().atMost(Duration.ofSeconds(5))
                .until(() -> r.alerts.watchdogTick().containsKey("executors"));
        assertThat(r.alerts.watchdogTick()).containsKey("executors");
        assertThat(r.alerts.health().status()).isEqualTo("unhealthy");
        r.node.dispatcher()
                .register(new Register("gpu-1", UUID.randomUUID().toString(), List.of("gpu"), "t", 1, "t", List.of()));
        assertThat(r.alerts.watchdogTick()).doesNotContainKey("executors");
        assertThat(r.alerts.watchdogTick()).isEmpty();
        r.pump();

        assertThat(r.alertsOf("WATCHDOG"))
                .singleElement()
                .satisfies(a -> assertThat(a.title()).contains("executors failing", "gpu"));
        assertThat(r.alertsOf("WATCHDOG_RECOVERED")).singleElement();
        assertThat(r.received).hasSize(2);
        assertThat(r.alerts.health().status()).isEqualTo("ok");
    }

    // ---- run logs -----------------------------------------------------------------------------

    @Test
    void an_oversized_run_log_is_cut_in_the_middle_once_and_old_run_logs_expire() {
        Rig r = rig(url -> Rig.hookConfig(url)
                .withLogs(new AlertsConfig.Logs(
                        64 * 1024,
                        30,
                        Duration.ofMinutes(5),
                        AlertsConfig.Logs.DEFAULT_SERVER_FILE_MAX_BYTES,
                        AlertsConfig.Logs.DEFAULT_SERVER_TOTAL_MAX_BYTES)));
        r.task("chatty", event(), Map.of("maxConcurrency", 5, "overflow", "ALLOW"));
        long big = r.trigger("chatty");
        long old = r.trigger("chatty");
        r.finish(big, true);
        r.finish(old, true, "old output");
        String line = "x".repeat(1000);
        r.store.tx(tx -> {
            for (int i = 0; i < 200; i++) {
                r.store.logs().append(tx, new RunRef(big, 1), "stdout", List.of(i + " " + line));
            }
            return null;
        });

        assertThat(r.alerts.runLogTick()).isEqualTo(1);
        long bytes = r.store
                .tx(tx -> tx.queryOne(
                        "SELECT SUM(OCTET_LENGTH(text)) AS n FROM ax_log WHERE instance_id = ?", x -> x.lng("n"), big))
                .orElseThrow();
        assertThat(bytes).isLessThanOrEqualTo(64 * 1024 + 200);
        List<String> text = r.store.tx(tx -> r.store.logs().read(tx, big, 0, 1000)).stream()
                .map(l -> l.text())
                .toList();
        assertThat(text.getFirst()).startsWith("0 ");
        assertThat(text.getLast()).startsWith("199 ");
        assertThat(text).anySatisfy(t -> assertThat(t).startsWith(LogCap.MARKER_PREFIX));
        assertThat(types(r, big)).containsOnlyOnce(EventType.LOG_TRUNCATED);
        assertThat(r.alerts.runLogTick()).isZero();

        r.store.tx(tx -> {
            // The old run and its output (written before the big run's) are a month old.
            tx.update(
                    "UPDATE ax_log SET at = " + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + " WHERE instance_id = ?",
                    -Duration.ofDays(32).toMillis(),
                    old);
            return tx.update(
                    "UPDATE ax_instance SET finished_at = " + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                            + " WHERE id = ?",
                    -Duration.ofDays(31).toMillis(),
                    old);
        });
        assertThat(r.node.retention().tick().logChunks()).isEqualTo(1); // the server's --retention-logs, P30D
        List<?> oldLog = r.store.tx(tx -> r.store.logs().read(tx, old, 0, 10));
        List<?> bigLog = r.store.tx(tx -> r.store.logs().read(tx, big, 0, 10));
        assertThat(oldLog).isEmpty();
        assertThat(bigLog).isNotEmpty();
    }

    // ---- helpers ------------------------------------------------------------------------------

    /** An every-minute task that existed for the last 12 minutes, with one run for each of its slots around now. */
    private long minutelyTaskWithRuns(Rig r) {
        r.task(
                "minutely",
                Map.of("type", "interval", "intervalSeconds", 60),
                Map.of("notifyOnFailure", List.of("hook")));
        long task = r.store.tx(
                tx -> r.store.tasks().find(tx, "minutely").orElseThrow().id());
        r.store.tx(tx -> tx.update(
                "UPDATE ax_task SET created_at = " + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + ", updated_at = "
                        + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + " WHERE id = ?",
                -Duration.ofMinutes(12).toMillis(),
                -Duration.ofMinutes(12).toMillis(),
                task));
        for (Instant slot : slotsAround(r)) {
            insertRun(r, task, slot, "SUCCESS");
        }
        return task;
    }

    /** The task's slots from 12 minutes ago to 2 minutes ahead (the runs beyond the window are not looked at). */
    private static List<Instant> slotsAround(Rig r) {
        Instant now = r.store.tx(tx -> tx.now());
        return SlotAudit.slots(
                new IntervalSchedule(60, null), now.minus(Duration.ofMinutes(12)), now.plus(Duration.ofMinutes(2)));
    }

    private static long insertRun(Rig r, long task, Instant slot, String state) {
        return insertRun(r, task, slot, state, slot.toString());
    }

    private static long insertRun(Rig r, long task, Instant slot, String state, String fireKey) {
        return r.store.tx(tx -> tx.insert(
                        "INSERT INTO ax_instance (task_id, task_name, task_version, cause, fire_key, scheduled_at,"
                                + " state, attempt, max_attempts, executor_group, ready_at, actor, node_id, created_at, updated_at, finished_at)"
                                + " VALUES (?, 'minutely', 1, 'INTERVAL', ?, ?, ?, 1, 1, 'default', ?, 'scheduler', 'test', CURRENT_TIMESTAMP,"
                                + " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
                        task,
                        fireKey,
                        slot,
                        state,
                        slot)
                .orElseThrow());
    }

    private static List<EventType> types(Rig r, long id) {
        return r.store.tx(tx -> r.store.events().forRun(tx, id, 0, 1000)).stream()
                .map(EventRow::type)
                .toList();
    }

    private static List<String> messages(Rig r, long id, EventType type) {
        return r.store.tx(tx -> r.store.events().forRun(tx, id, 0, 1000)).stream()
                .filter(e -> e.type() == type)
                .map(EventRow::message)
                .toList();
    }

    private static long cursor(Rig r) {
        return r.store
                .tx(tx -> tx.queryOne("SELECT last_event_id FROM ax_alert_cursor", x -> x.lng("last_event_id")))
                .orElseThrow();
    }
}
