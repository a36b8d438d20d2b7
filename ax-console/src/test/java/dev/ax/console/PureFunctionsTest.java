package dev.ax.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.console.Views.Bar;
import dev.ax.console.Views.Chart;
import dev.ax.console.Views.LogItem;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.LogStore.LogLine;
import dev.ax.store.read.ConsoleReads.HourRow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The console's pure parts: the chart layout, form parsing, log items, event framing, formatting. */
class PureFunctionsTest {
    static final Instant NOW = Instant.parse("2026-11-29T10:20:00Z");
    static final long HOUR = Math.floorDiv(NOW.getEpochSecond(), 3600);

    @Test
    void the_chart_has_a_bar_per_hour_scaled_to_the_busiest_with_failures_stacked_and_the_lag_line() {
        Chart c = DashboardPage.chart(
                List.of(
                        new HourRow(HOUR, RunState.SUCCESS, 4, 2.5),
                        new HourRow(HOUR, RunState.FAILED, 3, 0.5),
                        new HourRow(HOUR, RunState.TERMINATED, 2, null),
                        new HourRow(HOUR, RunState.RUNNING, 1, null),
                        new HourRow(HOUR - 23, RunState.SUCCESS, 5, null),
                        new HourRow(HOUR - 24, RunState.SUCCESS, 99, null)),
                NOW);
        assertThat(c.bars()).hasSize(24);
        assertThat(c.max()).isEqualTo(10); // the hour before the first bar is left out
        Bar last = c.bars().getLast();
        Bar first = c.bars().getFirst();
        assertThat(last.title()).isEqualTo("2026-11-29 10:00 UTC: 10 runs, 5 failed, worst fire lag 2.5 s");
        assertThat(first.title()).isEqualTo("2026-11-28 11:00 UTC: 5 runs");
        assertThat(first.label()).isEqualTo("11:00");
        assertThat(c.bars().get(6).label()).isEqualTo("17:00");
        assertThat(c.bars().get(1).label()).isNull();
        assertThat(last.failedHeight() * 2).isBetween(last.height() - 1, last.height() + 1);
        assertThat(last.y() + last.height()).isEqualTo(last.failedY() + last.failedHeight());
        assertThat(c.lagPoints()).isEqualTo((23 * c.barWidth() + c.barWidth() / 2) + ",8");
        assertThat(c.maxLag()).isEqualTo("2.5 s");
    }

    @Test
    void an_empty_day_draws_flat_bars_and_no_lag_line() {
        Chart c = DashboardPage.chart(List.of(), NOW);
        assertThat(c.bars()).allSatisfy(b -> assertThat(b.height()).isZero());
        assertThat(c.lagPoints()).isEmpty();
        assertThat(c.maxLag()).isNull();
    }

    @Test
    void trigger_parameters_are_key_value_lines() {
        assertThat(TaskPages.params(" region = eu \n\nday=2026-11-28\r\nexpr=a=b"))
                .containsExactly(Map.entry("region", "eu"), Map.entry("day", "2026-11-28"), Map.entry("expr", "a=b"));
        assertThat(TaskPages.params(null)).isEmpty();
        assertThatThrownBy(() -> TaskPages.params("ok=1\njust words"))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("line 2 'just words': write key=value");
        assertThatThrownBy(() -> TaskPages.params("=x")).isInstanceOf(ValidationException.class);
    }

    @Test
    void the_editor_reports_where_the_json_broke() {
        assertThatThrownBy(() -> TaskPages.parse("{\n  \"taskName\": ,\n}"))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("malformed JSON")
                .hasMessageContaining("line 2");
        assertThatThrownBy(() -> TaskPages.parse("  ")).hasMessageContaining("empty");
    }

    @Test
    void log_items_mark_stderr_and_each_new_attempt() {
        Instant t = NOW;
        List<LogItem> items = LogText.of(List.of(
                new LogLine(1, 1, "stdout", t, "a"),
                new LogLine(2, 1, "stderr", t, "b"),
                new LogLine(3, 2, "stdout", t, "c")));
        assertThat(items)
                .containsExactly(
                        new LogItem("log-out", "a\n"),
                        new LogItem("log-err", "b\n"),
                        new LogItem("log-attempt", "── attempt 2 ──\n"),
                        new LogItem("log-out", "c\n"));
        assertThat(LogText.of(List.of(new LogLine(4, 2, "stdout", t, "d")), 2))
                .containsExactly(new LogItem("log-out", "d\n"));
    }

    @Test
    void an_event_gives_every_line_of_its_data_its_own_field() {
        assertThat(LogStream.event("log", 7, "<span>a\nb</span>"))
                .isEqualTo("event: log\nid: 7\ndata: <span>a\ndata: b</span>\n\n");
        assertThat(LogStream.event("log", 8, "10%\r20%\r\ndone"))
                .isEqualTo("event: log\nid: 8\ndata: 10%\ndata: 20%\ndata: done\n\n");
    }

    @Test
    void the_csrf_field_is_bound_to_the_token() {
        assertThat(Session.csrf("token-a"))
                .isEqualTo(Session.csrf("token-a"))
                .isNotEqualTo(Session.csrf("token-b"))
                .doesNotContain("token-a")
                .hasSize(43);
    }

    @Test
    void only_local_paths_are_followed_after_a_login_or_an_action() {
        assertThat(Console.localPath("/runs/4?x=1", "/")).isEqualTo("/runs/4?x=1");
        assertThat(Console.localPath("//evil.example", "/")).isEqualTo("/");
        assertThat(Console.localPath("/\\evil.example", "/")).isEqualTo("/");
        assertThat(Console.localPath("https://evil.example", "/")).isEqualTo("/");
        assertThat(Console.localPath(null, "/tasks")).isEqualTo("/tasks");
    }

    @Test
    void durations_read_like_a_person_would_say_them() {
        assertThat(Fmt.duration(Duration.ofMillis(924))).isEqualTo("924 ms");
        assertThat(Fmt.duration(Duration.ofMillis(2500))).isEqualTo("2.5 s");
        assertThat(Fmt.duration(Duration.ofSeconds(184))).isEqualTo("3 min 4 s");
        assertThat(Fmt.duration(Duration.ofMinutes(125))).isEqualTo("2 h 5 min");
        assertThat(Fmt.duration(Duration.ofHours(50))).isEqualTo("2 d 2 h");
        assertThat(Fmt.Time.of(Instant.parse("2026-11-29T02:00:00.123456Z")))
                .isEqualTo(new Fmt.Time("2026-11-29T02:00:00.123Z", "2026-11-29 02:00:00 UTC"));
    }
}
