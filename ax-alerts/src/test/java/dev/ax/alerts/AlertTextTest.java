package dev.ax.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AlertTextTest {
    @Test
    void the_log_tail_keeps_the_last_lines_within_the_byte_limit() {
        List<String> chunks = new ArrayList<>();
        for (int i = 1; i <= 30; i++) {
            chunks.add("line " + i);
        }
        String tail = RunAlerts.tail(
                List.of(String.join("\n", chunks.subList(0, 15)), String.join("\n", chunks.subList(15, 30)) + "\n"),
                20,
                4096);
        assertThat(tail.lines().toList()).hasSize(20).startsWith("line 11").endsWith("line 30");
        assertThat(RunAlerts.tail(List.of("a".repeat(100), "b".repeat(100)), 20, 150))
                .isEqualTo("b".repeat(100) + "\n");
        assertThat(RunAlerts.tail(List.of("x".repeat(10_000) + "END"), 20, 100))
                .startsWith("…")
                .endsWith("END\n")
                .hasSizeLessThan(100);
    }

    @Test
    void plain_and_markdown_carry_the_same_facts() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("Task", "daily_report (v3)");
        f.put("Run", "#42");
        AlertContent c = new AlertContent(
                AlertKind.RUN_FAILED,
                "daily_report #42 failed: exited with code 3",
                f,
                List.of(),
                "loading...\nboom: disk full\n",
                "ax run retry 42",
                "http://ax:7070/runs/42");
        String plain = AlertText.plain(c);
        assertThat(plain)
                .contains(
                        "Task: daily_report (v3)",
                        "Next: ax run retry 42",
                        "Console: http://ax:7070/runs/42",
                        "Last lines of the log:\nloading...\nboom: disk full\n");
        String md = AlertText.markdown(c);
        assertThat(md)
                .startsWith("### 🔴 daily_report #42 failed")
                .contains("- **Run**: #42", "> boom: disk full", "[Open in the console](http://ax:7070/runs/42)");
        assertThat(AlertContent.fromMap(c.toMap())).isEqualTo(c);
    }

    @Test
    void wecom_content_is_cut_at_a_character_within_its_byte_limit() {
        String cut = RobotChannel.cut("é".repeat(3000), RobotChannel.WECOM_MAX_BYTES);
        assertThat(cut.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(RobotChannel.WECOM_MAX_BYTES);
        assertThat(cut).endsWith("…").doesNotContain("\uFFFD");
    }

    @Test
    void delivery_backoff_grows_threefold_and_is_capped() {
        var first = Duration.ofSeconds(15);
        assertThat(Deliveries.backoff(first, 1)).hasSeconds(15);
        assertThat(Deliveries.backoff(first, 2)).hasSeconds(45);
        assertThat(Deliveries.backoff(first, 3)).hasSeconds(135);
        assertThat(Deliveries.backoff(first, 10)).isEqualTo(Deliveries.MAX_RETRY);
    }

    @Test
    void an_alert_keeps_its_language_in_the_outbox_and_one_queued_before_languages_reads_as_english() {
        AlertContent zh = new AlertContent(
                AlertKind.RUN_SUCCEEDED,
                "daily_report 执行成功（#7）",
                Map.of("Run", "#7"),
                List.of(),
                null,
                null,
                null,
                AlertWords.ZH_CN);
        assertThat(AlertContent.fromMap(zh.toMap())).isEqualTo(zh);
        assertThat(AlertText.plain(zh)).isEqualTo("daily_report 执行成功（#7）\n\n实例：#7\n");
        Map<String, Object> old = new LinkedHashMap<>(zh.toMap());
        old.remove("language");
        assertThat(AlertContent.fromMap(old).language()).isEqualTo(AlertWords.EN);
    }
}
