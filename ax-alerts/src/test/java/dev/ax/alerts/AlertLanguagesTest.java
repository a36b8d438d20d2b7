package dev.ax.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import dev.ax.domain.protocol.Register;
import dev.ax.store.ClockBoundaries;
import dev.ax.store.TestDatabases;
import jakarta.mail.internet.MimeMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each channel in its own language, on one server: a real SMTP server (GreenMail) and real HTTP servers standing in for
 * DingTalk, WeCom and Feishu robots and for webhooks. A channel with {@code "language": "zh-CN"} gets Chinese while the
 * English one beside it gets English; what machines read (kinds, codes, a webhook's field keys) stays English.
 */
class AlertLanguagesTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Locale ZH = AlertWords.ZH_CN;

    GreenMail mail;
    Rig rig;
    /** What each robot or webhook path received. */
    final Map<String, List<String>> received = new ConcurrentHashMap<>();

    @BeforeEach
    void startMail() {
        mail = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP).dynamicPort());
        mail.start();
    }

    @AfterEach
    void stop() {
        if (rig != null) {
            rig.close();
        }
        mail.stop();
    }

    /** A rig whose channels are mail and robots in Chinese, mail and a webhook in English (the server's language). */
    Rig rig(int stormLimit, AlertsConfig.Watch watch) {
        rig = new Rig(TestDatabases.h2(), url -> {
            String base = url.substring(0, url.length() - "/hook".length());
            Map<String, ChannelConfig> channels = new LinkedHashMap<>();
            channels.put("mail-zh", email("oncall-cn@example.com"));
            channels.put("mail-en", email("oncall@example.com"));
            channels.put("dingtalk", new ChannelConfig.DingTalk(base + "/dingtalk?access_token=t", null, null, false));
            channels.put("wecom", new ChannelConfig.Robot(ChannelConfig.Robot.Kind.WECOM, base + "/wecom?key=k", null));
            channels.put("feishu", new ChannelConfig.Robot(ChannelConfig.Robot.Kind.FEISHU, base + "/feishu", null));
            channels.put("hook-zh", new ChannelConfig.Webhook(base + "/hook-zh", Map.of()));
            channels.put("hook", new ChannelConfig.Webhook(url, Map.of()));
            Map<String, Locale> languages = new LinkedHashMap<>();
            List.of("mail-zh", "dingtalk", "wecom", "feishu", "hook-zh").forEach(c -> languages.put(c, ZH));
            return new AlertsConfig(
                            channels,
                            "http://console.test",
                            List.of("hook-zh", "hook"),
                            stormLimit,
                            AlertsConfig.Pipeline.DEFAULT.withFirstRetry(Duration.ofMillis(1)),
                            watch,
                            null,
                            null)
                    .withLanguages(languages);
        });
        answer("/dingtalk", "{\"errcode\":0,\"errmsg\":\"ok\"}");
        answer("/wecom", "{\"errcode\":0,\"errmsg\":\"ok\"}");
        answer("/feishu", "{\"code\":0,\"msg\":\"success\"}");
        answer("/hook-zh", "");
        return rig;
    }

    private ChannelConfig.Email email(String to) {
        return new ChannelConfig.Email(
                "127.0.0.1", mail.getSmtp().getPort(), false, false, null, null, "ax@example.com", List.of(to));
    }

    private void answer(String path, String body) {
        received.put(path, new CopyOnWriteArrayList<>());
        rig.http.createContext(path, exchange -> {
            received.get(path).add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] out = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, out.length == 0 ? -1 : out.length);
            if (out.length > 0) {
                exchange.getResponseBody().write(out);
            }
            exchange.close();
        });
    }

    @Test
    void a_failure_reads_in_chinese_on_every_chinese_channel_and_in_english_on_the_english_ones() throws Exception {
        Rig r = rig(AlertsConfig.DEFAULT_STORM_LIMIT, null);
        r.task(
                "daily_report",
                Map.of("type", "event"),
                Map.of(
                        "notifyOnFailure",
                        List.of("mail-zh", "mail-en", "dingtalk", "wecom", "feishu", "hook-zh", "hook")));
        long id = r.trigger("daily_report");
        r.finish(id, false, "loading 42 rows", "boom: disk full");
        r.pump();
        await().atMost(Duration.ofSeconds(10)).until(() -> mail.getReceivedMessages().length == 2);

        MimeMessage zh = to("oncall-cn@example.com");
        assertThat(zh.getSubject()).isEqualTo("[AX CRITICAL] daily_report #" + id + " 执行失败：退出码 3");
        assertThat((String) zh.getContent())
                .contains(
                        "任务：daily_report（v1）",
                        "实例：#" + id,
                        "尝试：第 1 次，共 1 次",
                        "状态：失败 FAILED",
                        "触发链路：#" + id + " 手动 manual（alice 触发）",
                        "下一步：ax run retry " + id + "（用相同参数重试）",
                        "控制台：http://console.test/runs/" + id,
                        "日志最后几行：\nloading 42 rows\nboom: disk full");
        MimeMessage en = to("oncall@example.com");
        assertThat(en.getSubject()).isEqualTo("[AX CRITICAL] daily_report #" + id + " failed: exited with code 3");
        assertThat((String) en.getContent())
                .contains(
                        "Task: daily_report (v1)",
                        "State: FAILED",
                        "Next: ax run retry " + id,
                        "Last lines of the log:")
                .doesNotContainPattern("\\p{IsHan}");

        JsonNode dingtalk = only("/dingtalk");
        assertThat(dingtalk.at("/markdown/title").asText()).isEqualTo(zh.getSubject());
        assertThat(dingtalk.at("/markdown/text").asText())
                .startsWith("### 🔴 daily_report #" + id + " 执行失败：退出码 3")
                .contains(
                        "- **任务**：daily_report（v1）",
                        "**下一步**：ax run retry " + id,
                        "[在控制台中查看](http://console.test/runs/" + id + ")",
                        "**日志最后几行**",
                        "> boom: disk full");
        assertThat(only("/wecom").at("/markdown/content").asText())
                .contains("- **状态**：失败 FAILED", "**下一步**：ax run retry " + id);
        assertThat(only("/feishu").at("/content/text").asText())
                .contains("daily_report #" + id + " 执行失败：退出码 3", "失败原因：EXIT_CODE", "日志最后几行：");

        // A webhook is read by machines: its keys and codes stay English, its words are the channel's.
        JsonNode hookZh = only("/hook-zh");
        assertThat(hookZh.get("kind").asText()).isEqualTo("RUN_FAILED");
        assertThat(hookZh.get("severity").asText()).isEqualTo("CRITICAL");
        assertThat(hookZh.get("language").asText()).isEqualTo("zh-CN");
        assertThat(hookZh.at("/fields/Task").asText()).isEqualTo("daily_report（v1）");
        assertThat(hookZh.at("/fields/State").asText()).isEqualTo("失败 FAILED");
        assertThat(hookZh.get("text").asText()).contains("任务：daily_report（v1）");
        JsonNode hook = JSON.readTree(r.received.getFirst());
        assertThat(hook.get("title").asText()).isEqualTo("daily_report #" + id + " failed: exited with code 3");
        assertThat(hook.get("language").asText()).isEqualTo("en");
        assertThat(r.alerts.loopErrors()).isZero();
    }

    @Test
    void a_recovery_notice_and_a_storm_summary_read_in_chinese() throws Exception {
        Rig r = rig(2, null);
        r.task(
                "flaky",
                Map.of("type", "event"),
                Map.of(
                        "notifyOnFailure",
                        List.of("hook-zh"),
                        "notifyOnSuccess",
                        "RECOVERY",
                        "maxConcurrency",
                        10,
                        "overflow",
                        "ALLOW"));
        // The summary is due when its minute ends: start well inside a minute, or it is sent by the first pump.
        ClockBoundaries.awaitClearOfMinuteEnd(r.store, Duration.ofSeconds(10));
        List<Long> failed = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            failed.add(r.trigger("flaky"));
            r.finish(failed.getLast(), false);
        }
        long ok = r.trigger("flaky");
        r.finish(ok, true);
        r.pump();
        assertThat(titles("/hook-zh"))
                .containsExactly("flaky #" + failed.get(0) + " 执行失败：退出码 3", "flaky #" + failed.get(1) + " 执行失败：退出码 3");

        r.store.tx(tx -> tx.update("UPDATE ax_alert SET next_at = CURRENT_TIMESTAMP WHERE kind = 'STORM_SUMMARY'"));
        r.pump();
        JsonNode summary = JSON.readTree(received.get("/hook-zh").getLast());
        assertThat(summary.get("kind").asText()).isEqualTo("STORM_SUMMARY");
        assertThat(summary.get("title").asText()).isEqualTo("hook-zh 一分钟内又有 4 条告警，已合并为这一条");
        assertThat(summary.get("text").asText())
                .contains(
                        "- flaky #" + failed.get(2) + " 执行失败：退出码 3",
                        "- flaky 已恢复：连续失败 5 次后再次成功（#" + ok + "）",
                        "每分钟告警少于 2 条后");
    }

    @Test
    void the_watchdog_speaks_each_system_channels_language() throws Exception {
        Rig r = rig(
                AlertsConfig.DEFAULT_STORM_LIMIT,
                new AlertsConfig.Watch(
                        Duration.ofSeconds(30),
                        Duration.ofMinutes(1),
                        Duration.ofMinutes(5),
                        Duration.ofMinutes(5),
                        Duration.ofMillis(1)));
        r.node.tasks()
                .create(
                        Map.of(
                                "taskName",
                                "gpu_job",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "true", "group", "gpu")),
                        "test");
        r.trigger("gpu_job");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> r.alerts.watchdogTick().containsKey("executors"));
        r.node.dispatcher()
                .register(new Register("gpu-1", UUID.randomUUID().toString(), List.of("gpu"), "t", 1, "t", List.of()));
        assertThat(r.alerts.watchdogTick()).isEmpty();
        r.pump();

        assertThat(titles("/hook-zh"))
                .containsExactly("AX 自检：executors 异常 —— 分组 gpu 有就绪（READY）的实例在等待，但没有在线的执行器服务它", "AX 自检：executors 已恢复正常");
        assertThat(JSON.readTree(received.get("/hook-zh").getFirst())
                        .get("text")
                        .asText())
                .contains("检查项：executors", "下一步：为该分组启动一个执行器：ax executor");
        assertThat(r.received)
                .hasSize(2)
                .first()
                .asString()
                .contains("AX watchdog: executors failing — READY runs in group gpu wait");
    }

    @Test
    void a_missed_slot_is_reported_in_chinese_and_in_english_side_by_side() throws Exception {
        Rig r = rig(AlertsConfig.DEFAULT_STORM_LIMIT, null);
        r.task(
                "minutely",
                Map.of("type", "interval", "intervalSeconds", 60),
                Map.of("notifyOnFailure", List.of("hook-zh", "hook")));
        // A task that has existed for 12 minutes and never ran: every slot of the window was missed.
        r.store.tx(tx -> tx.update(
                "UPDATE ax_task SET created_at = " + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + ", updated_at = "
                        + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + " WHERE name = 'minutely'",
                -Duration.ofMinutes(12).toMillis(),
                -Duration.ofMinutes(12).toMillis()));
        assertThat(r.alerts.anomalyTick()).isEqualTo(2);
        r.pump();

        JsonNode zh = only("/hook-zh");
        assertThat(zh.get("kind").asText()).isEqualTo("MISSED_EXECUTION");
        assertThat(zh.get("title").asText()).matches("minutely 漏执行了 \\d+ 次定时调度");
        assertThat(zh.get("text").asText()).contains("调度：每 60 秒", "时间点 ", "下一步：确认调度节点在运行", "ax trigger minutely");
        assertThat(JSON.readTree(r.received.getFirst()).get("title").asText())
                .matches("minutely missed \\d+ scheduled runs?");
    }

    @Test
    void every_text_has_the_same_values_in_both_languages_and_english_apostrophes_are_escaped() {
        AlertWords en = AlertWords.of(AlertWords.EN);
        AlertWords zh = AlertWords.of(ZH);
        assertThat(en.text("next.failed", 42)).contains("(the task's current version)");
        assertThat(zh.text("schedule.cron", "0 2 * * *", "Asia/Shanghai")).isEqualTo("cron '0 2 * * *'（Asia/Shanghai）");
        assertThat(zh.label("Usual (p95 of recent successes)")).isEqualTo("平时耗时（近期成功实例的 p95）");
        assertThat(zh.label("a label nobody wrote")).isEqualTo("a label nobody wrote");
        assertThat(zh.human(Duration.ofSeconds(185))).isEqualTo("3 分 5 秒");
        assertThat(en.human(Duration.ofSeconds(7200))).isEqualTo("2h");
        assertThat(Arrays.stream(new String[] {"zh-CN", "zh_cn", "EN"}).map(AlertWords::parse))
                .allSatisfy(l -> assertThat(l).isPresent());
        assertThat(AlertWords.parse("fr")).isEmpty();
    }

    private MimeMessage to(String address) throws Exception {
        for (MimeMessage m : mail.getReceivedMessages()) {
            if (m.getAllRecipients()[0].toString().equals(address)) {
                return m;
            }
        }
        throw new AssertionError("no mail to " + address);
    }

    private JsonNode only(String path) throws Exception {
        assertThat(received.get(path)).as(path).hasSize(1);
        return JSON.readTree(received.get(path).getFirst());
    }

    private List<String> titles(String path) {
        return received.get(path).stream()
                .map(b -> {
                    try {
                        return JSON.readTree(b).get("title").asText();
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                })
                .toList();
    }
}
