package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import com.sun.net.httpserver.HttpServer;
import dev.ax.alerts.AlertsConfig;
import dev.ax.alerts.ChannelConfig;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.scheduler.HistoryRetention;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.store.EventRow;
import dev.ax.store.TestDatabases;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Alerts through a real server to real receivers: an SMTP server (GreenMail) and HTTP servers
 * standing in for a DingTalk robot and a webhook; the watchdog against a paused firing loop;
 * /healthz and /metrics as a prober and Prometheus see them.
 */
class AlertsEndToEndTest {
    static final ObjectMapper JSON = new ObjectMapper();
    /** Prints 30 numbered lines, an error on stderr, and fails. */
    static final String FAILING = "for i in $(seq 1 30); do echo \"line $i\"; done; echo 'boom: disk full' >&2; exit 3";

    @TempDir
    Path dir;

    AxServer server;
    GreenMail mail;
    HttpServer http;
    final List<String> bodies = new CopyOnWriteArrayList<>();
    final List<String> queries = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (mail != null) {
            mail.stop();
        }
        if (http != null) {
            http.stop(0);
        }
    }

    @Test
    void the_email_alert_of_a_failed_run_reaches_the_mailbox_with_the_log_tail() throws Exception {
        mail = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP).dynamicPort());
        mail.setUser("ax@example.com", "ax", "s3cret");
        mail.start();
        server = start(alerts(Map.of(
                "email",
                new ChannelConfig.Email(
                        "127.0.0.1",
                        mail.getSmtp().getPort(),
                        false,
                        false,
                        "ax",
                        "s3cret",
                        "ax@example.com",
                        List.of("ops@example.com")))));
        var saved = server.node().tasks().create(task("daily_report", FAILING, List.of("email")), "test");
        assertThat(saved.warnings()).noneMatch(w -> w.contains("notifyOnFailure"));

        long id = server.node().tasks().trigger("daily_report", Map.of(), Cause.MANUAL, "alice");
        await().atMost(Duration.ofSeconds(30)).until(() -> mail.getReceivedMessages().length == 1);

        MimeMessage m = mail.getReceivedMessages()[0];
        assertThat(m.getSubject()).isEqualTo("[AX CRITICAL] daily_report #" + id + " failed: exited with code 3");
        assertThat(m.getAllRecipients()[0].toString()).isEqualTo("ops@example.com");
        String body = (String) m.getContent();
        assertThat(body)
                .contains(
                        "Task: daily_report (v1)",
                        "Run: #" + id,
                        "Attempt: 1 of 1",
                        "State: FAILED",
                        "Failure: EXIT_CODE: exited with code 3",
                        "Trigger chain: #" + id + " manual by alice",
                        "Next: ax run retry " + id,
                        "Console: http://ax.example:7070/runs/" + id,
                        "Last lines of the log:",
                        "line 30",
                        "boom: disk full");
        assertThat(body).doesNotContain("line 3\n").doesNotContain("s3cret");
        await().atMost(Duration.ofSeconds(10)).until(() -> events(id).contains(EventType.ALERT_SENT));
    }

    @Test
    void a_dingtalk_robot_gets_a_markdown_alert_with_a_valid_signature() throws Exception {
        String secret = "SEC7d1e0b5a9c3f4e2d8b6a0c1f2e3d4c5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f0e1d";
        startHttp("/robot/send", "{\"errcode\":0,\"errmsg\":\"ok\"}");
        String webhook = "http://127.0.0.1:" + http.getAddress().getPort() + "/robot/send?access_token=tok123";
        server = start(alerts(Map.of("dingtalk", new ChannelConfig.DingTalk(webhook, secret, List.of(), false))));
        server.node().tasks().create(task("daily_report", FAILING, List.of("dingtalk")), "test");
        long id = server.node().tasks().trigger("daily_report", Map.of(), Cause.MANUAL, "alice");

        await().atMost(Duration.ofSeconds(30)).until(() -> !bodies.isEmpty());
        Map<String, String> q = new HashMap<>();
        for (String pair : queries.getFirst().split("&")) {
            String[] kv = pair.split("=", 2);
            q.put(kv[0], URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
        }
        assertThat(q.get("access_token")).isEqualTo("tok123");
        long timestamp = Long.parseLong(q.get("timestamp"));
        // DingTalk's rule, computed here independently: Base64(HmacSHA256(secret, timestamp + "\n" + secret)).
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String expected = Base64.getEncoder()
                .encodeToString(mac.doFinal((timestamp + "\n" + secret).getBytes(StandardCharsets.UTF_8)));
        assertThat(q.get("sign")).isEqualTo(expected);
        long now = server.store().tx(tx -> tx.now()).toEpochMilli();
        assertThat(Math.abs(now - timestamp)).isLessThan(Duration.ofMinutes(5).toMillis());

        JsonNode body = JSON.readTree(bodies.getFirst());
        assertThat(body.get("msgtype").asText()).isEqualTo("markdown");
        assertThat(body.at("/markdown/title").asText()).contains("daily_report #" + id + " failed");
        assertThat(body.at("/markdown/text").asText())
                .contains(
                        "### 🔴 daily_report #" + id,
                        "> boom: disk full",
                        "ax run retry " + id,
                        "[Open in the console](http://ax.example:7070/runs/" + id + ")");
        await().atMost(Duration.ofSeconds(10)).until(() -> events(id).contains(EventType.ALERT_SENT));
    }

    @Test
    void a_paused_scheduler_raises_the_silence_alert_and_healthz_turns_503_then_200_again() throws Exception {
        startHttp("/ops", "");
        String url = "http://127.0.0.1:" + http.getAddress().getPort() + "/ops";
        AlertsConfig cfg = alerts(Map.of("ops", new ChannelConfig.Webhook(url, Map.of())))
                .withWatch(new AlertsConfig.Watch(
                        Duration.ofMillis(200),
                        Duration.ofSeconds(2),
                        Duration.ofMinutes(5),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(30)));
        server = start(cfg);
        createEverySecond();
        ServerClient anonymous = new ServerClient(server.url(), null);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> anonymous.get("/healthz").status() == 200
                        && anonymous
                                        .get("/healthz")
                                        .json()
                                        .get("lastInstanceId")
                                        .asLong()
                                > 0);

        server.node().firingLoop().setPaused(true);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> anonymous.get("/healthz").status() == 503);
        JsonNode sick = anonymous.get("/healthz").json();
        assertThat(sick.get("status").asText()).isEqualTo("unhealthy");
        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        anonymous.get("/healthz").json().at("/failing/silence").isTextual());
        await().atMost(Duration.ofSeconds(20))
                .until(() -> bodies.stream().anyMatch(b -> b.contains("AX watchdog: silence failing")));
        assertThat(bodies).anyMatch(b -> b.contains("AX watchdog: scheduler-loop failing"));

        server.node().firingLoop().setPaused(false);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> anonymous.get("/healthz").status() == 200);
        JsonNode well = anonymous.get("/healthz").json();
        assertThat(well.get("status").asText()).isEqualTo("ok");
        assertThat(well.get("failing").size()).isZero();
        assertThat(well.get("nodeId").asText()).isEqualTo("node-1");
        assertThat(well.get("schedulerLoopAgeMillis").asLong()).isLessThan(2000);
        assertThat(well.has("readyBacklog") && well.has("running") && well.has("liveExecutors") && well.has("dbTime"))
                .isTrue();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> bodies.stream().anyMatch(b -> b.contains("AX watchdog: silence is healthy again")));
        assertThat(server.alerts().loopErrors()).isZero();
    }

    @Test
    void a_node_whose_clock_is_30s_off_is_degraded_not_unhealthy_and_alerted() throws Exception {
        startHttp("/ops", "");
        String url = "http://127.0.0.1:" + http.getAddress().getPort() + "/ops";
        AlertsConfig cfg = alerts(Map.of("ops", new ChannelConfig.Webhook(url, Map.of())))
                .withWatch(new AlertsConfig.Watch(
                        Duration.ofMillis(200),
                        Duration.ofSeconds(60),
                        Duration.ofMinutes(5),
                        Duration.ofMinutes(5),
                        Duration.ofSeconds(30),
                        Duration.ofSeconds(5)));
        server = AxServer.start(new ServerConfig(
                0,
                dir.resolve("skewed"),
                TestDatabases.h2(),
                List.of("default"),
                "admin-token",
                "node-1",
                SchedulerConfig.DEFAULT,
                Duration.ofSeconds(30),
                cfg));
        ServerClient anonymous = new ServerClient(server.url(), null);

        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        anonymous.get("/healthz").json().at("/degraded/clock").isTextual());
        ServerClient.Response r = anonymous.get("/healthz");
        assertThat(r.status())
                .as("scheduling goes by the database's clock: still serving")
                .isEqualTo(200);
        assertThat(r.json().get("status").asText()).isEqualTo("degraded");
        assertThat(r.json().at("/degraded/clock").asText()).containsPattern("(29|30)s ahead of the database's");
        assertThat(r.json().get("failing").size()).isZero();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> bodies.stream().anyMatch(b -> b.contains("AX watchdog: clock failing")));
    }

    @Test
    void metrics_are_scraped_with_the_fire_lag_histogram() {
        server = start(AlertsConfig.NONE);
        createEverySecond();
        ServerClient anonymous = new ServerClient(server.url(), null);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> anonymous.get("/metrics").body().contains("ax_runs_finished_total{outcome=\"success\"}"));

        ServerClient.Response r = anonymous.get("/metrics");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body())
                .contains(
                        "ax_fire_lag_seconds_bucket{le=",
                        "ax_fire_lag_seconds_count",
                        "ax_fires_total{cause=\"interval\"}",
                        "ax_start_lag_seconds_bucket",
                        "ax_instances{state=\"ready\"}",
                        "ax_executors_live",
                        "ax_scheduler_loop_age_seconds",
                        "ax_history_rows{table=\"runs\"}",
                        "ax_history_oldest_age_seconds",
                        "hikaricp_connections_active",
                        "jvm_memory_used_bytes");
    }

    @Test
    void with_a_short_retention_runs_expire_while_the_task_fires_and_healthz_and_metrics_say_so() {
        SchedulerConfig scheduler = SchedulerConfig.DEFAULT.withRetention(
                HistoryRetention.DEFAULT.withRuns(Duration.ofSeconds(3)).withEvery(Duration.ofMillis(500)));
        server = AxServer.start(new ServerConfig(
                0,
                dir,
                TestDatabases.h2(),
                List.of("default"),
                "t",
                "node-1",
                scheduler,
                Duration.ZERO,
                AlertsConfig.NONE));
        createEverySecond();
        ServerClient anonymous = new ServerClient(server.url(), null);

        await().atMost(Duration.ofSeconds(30))
                .until(() -> anonymous
                                .get("/healthz")
                                .json()
                                .at("/retention/deletedRuns")
                                .asLong()
                        >= 3);

        JsonNode health = anonymous.get("/healthz").json();
        assertThat(health.at("/retention/runs").asText()).isEqualTo("PT3S");
        assertThat(health.at("/retention/logs").asText()).isEqualTo("P30D");
        // The oldest run kept ended at most the period, a round and a run ago; none of the task's runs is lost
        // while it fires: the newest is always there.
        Instant oldest = Instant.parse(health.at("/history/oldestRunAt").asText());
        Instant newest = Instant.parse(health.at("/lastInstanceAt").asText());
        assertThat(Duration.between(oldest, newest)).isLessThan(Duration.ofSeconds(15));
        assertThat(anonymous.get("/metrics").body()).contains("ax_retention_deleted_total{what=\"runs\"}");
    }

    @Test
    void an_unreachable_channel_blocks_neither_start_up_nor_runs_and_shows_on_healthz() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        server = start(alerts(Map.of(
                "email",
                new ChannelConfig.Email(
                        "127.0.0.1",
                        closedPort,
                        false,
                        false,
                        null,
                        null,
                        "ax@example.com",
                        List.of("ops@example.com")))));
        server.node().tasks().create(task("daily_report", "exit 3", List.of("email")), "test");
        long id = server.node().tasks().trigger("daily_report", Map.of(), Cause.MANUAL, "alice");
        ServerClient anonymous = new ServerClient(server.url(), null);

        await().atMost(Duration.ofSeconds(30)).until(() -> events(id).contains(EventType.ALERT_FAILED));
        ServerClient.Response h = anonymous.get("/healthz");
        assertThat(h.status()).isEqualTo(200);
        assertThat(h.json().get("status").asText()).isEqualTo("degraded");
        assertThat(h.json().at("/channels/email/state").asText()).isEqualTo("failing");
        assertThat(h.json().at("/channels/email/lastError").asText()).contains("Connection refused");
        // The scheduler went on: the next run of the same task is created and finishes.
        long next = server.node().tasks().trigger("daily_report", Map.of(), Cause.MANUAL, "alice");
        await().atMost(Duration.ofSeconds(20)).until(() -> events(next).contains(EventType.FAILED));
    }

    @Test
    void a_mistake_in_the_alerts_file_refuses_the_start_with_the_field_named() throws IOException {
        Path file = dir.resolve("alerts.json");
        Files.writeString(file, """
                {"channels": {"mail": {"type": "email", "host": "smtp.example.com", "port": 99999,
                                       "from": "ax@example.com", "to": ["ops@example.com"]}}}
                """);
        assertThatThrownBy(() -> AxServer.readAlerts(file))
                .isInstanceOf(StartupException.class)
                .hasMessageContaining("channels.mail.port: must be a number between 1 and 65535");
        Files.writeString(file, """
                {"channels": {"ops": {"type": "webhook", "url": "https://hooks.example.com/ax"}}, "consoleUrl": "http://ax:7070"}
                """);
        assertThat(AxServer.readAlerts(file).channels()).containsOnlyKeys("ops");
    }

    // ---- helpers ------------------------------------------------------------------------------

    /** A task that runs {@code true} every second. */
    private void createEverySecond() {
        server.node()
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "every_second",
                                "trigger",
                                Map.of("type", "interval", "intervalSeconds", 1),
                                "action",
                                Map.of("type", "shell", "command", "true")),
                        "test");
    }

    private AxServer start(AlertsConfig alerts) {
        return AxServer.start(new ServerConfig(
                0,
                dir,
                TestDatabases.h2(),
                List.of("default"),
                "t",
                "node-1",
                SchedulerConfig.DEFAULT,
                Duration.ZERO,
                alerts));
    }

    private static AlertsConfig alerts(Map<String, ChannelConfig> channels) {
        return new AlertsConfig(
                channels,
                "http://ax.example:7070",
                null,
                AlertsConfig.DEFAULT_STORM_LIMIT,
                AlertsConfig.Pipeline.DEFAULT.withFirstRetry(Duration.ofMillis(200)),
                null,
                null,
                null);
    }

    private static Map<String, Object> task(String name, String command, List<String> channels) {
        return Map.of(
                "taskName",
                name,
                "trigger",
                Map.of("type", "event"),
                "action",
                Map.of("type", "shell", "command", command),
                "policy",
                Map.of("notifyOnFailure", channels));
    }

    private List<EventType> events(long id) {
        return server.store().tx(tx -> server.store().events().forRun(tx, id, 0, 1000)).stream()
                .map(EventRow::type)
                .toList();
    }

    private void startHttp(String path, String answer) throws IOException {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext(path, exchange -> {
            queries.add(
                    exchange.getRequestURI().getRawQuery() == null
                            ? ""
                            : exchange.getRequestURI().getRawQuery());
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] out = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, out.length == 0 ? -1 : out.length);
            if (out.length > 0) {
                exchange.getResponseBody().write(out);
            }
            exchange.close();
        });
        http.start();
    }
}
