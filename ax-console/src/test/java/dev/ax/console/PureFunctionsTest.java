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
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The console's pure parts: the chart layout, form parsing, log items, event framing, formatting. */
class PureFunctionsTest {
    static final Instant NOW = Instant.parse("2026-11-29T10:20:00Z");
    static final I18n EN_UTC = new I18n(I18n.EN, ZoneOffset.UTC, "/");
    static final I18n ZH_SHANGHAI = new I18n(I18n.ZH_CN, ZoneId.of("Asia/Shanghai"), "/");
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
                NOW,
                EN_UTC);
        assertThat(c.bars()).hasSize(24);
        assertThat(c.max()).isEqualTo(10); // the hour before the first bar is left out
        Bar last = c.bars().getLast();
        Bar first = c.bars().getFirst();
        assertThat(last.title()).isEqualTo("2026-11-29 10:00 GMT: 10 runs, 5 failed, worst fire lag 2.5 s");
        assertThat(first.title()).isEqualTo("2026-11-28 11:00 GMT: 5 runs");
        assertThat(first.label()).isEqualTo("11:00");
        assertThat(c.bars().get(6).label()).isEqualTo("17:00");
        assertThat(c.bars().get(1).label()).isNull();
        assertThat(last.failedHeight() * 2).isBetween(last.height() - 1, last.height() + 1);
        assertThat(last.y() + last.height()).isEqualTo(last.failedY() + last.failedHeight());
        assertThat(c.lagPoints()).isEqualTo((23 * c.barWidth() + c.barWidth() / 2) + ",8");
        assertThat(c.maxLag()).isEqualTo("2.5 s");
        assertThat(c.zone()).isEqualTo("Z");
    }

    @Test
    void in_chinese_the_chart_reads_in_chinese_and_labels_hours_in_the_persons_zone() {
        Chart c = DashboardPage.chart(
                List.of(new HourRow(HOUR, RunState.SUCCESS, 4, 2.5), new HourRow(HOUR, RunState.FAILED, 1, null)),
                NOW,
                ZH_SHANGHAI);
        assertThat(c.bars().getLast().title()).isEqualTo("2026-11-29 18:00 GMT+8：5 个实例，失败 1 个，最大触发延迟 2.5 秒");
        assertThat(c.bars().getFirst().label()).isEqualTo("19:00");
        assertThat(c.zone()).isEqualTo("Asia/Shanghai");
    }

    @Test
    void an_empty_day_draws_flat_bars_and_no_lag_line() {
        Chart c = DashboardPage.chart(List.of(), NOW, EN_UTC);
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
    void durations_read_like_a_person_would_say_them_in_either_language() {
        assertThat(EN_UTC.duration(Duration.ofMillis(924))).isEqualTo("924 ms");
        assertThat(EN_UTC.duration(Duration.ofMillis(2500))).isEqualTo("2.5 s");
        assertThat(EN_UTC.duration(Duration.ofSeconds(184))).isEqualTo("3 min 4 s");
        assertThat(EN_UTC.duration(Duration.ofMinutes(125))).isEqualTo("2 h 5 min");
        assertThat(EN_UTC.duration(Duration.ofHours(50))).isEqualTo("2 d 2 h");
        assertThat(ZH_SHANGHAI.duration(Duration.ofMillis(924))).isEqualTo("924 毫秒");
        assertThat(ZH_SHANGHAI.duration(Duration.ofSeconds(184))).isEqualTo("3 分 4 秒");
        assertThat(ZH_SHANGHAI.duration(Duration.ofMinutes(125))).isEqualTo("2 小时 5 分");
        assertThat(ZH_SHANGHAI.duration(Duration.ofHours(50))).isEqualTo("2 天 2 小时");
    }

    @Test
    void a_time_is_shown_in_the_persons_zone_with_its_offset_and_kept_in_utc_for_the_attribute_and_hover() {
        Fmt.Time t = Fmt.Time.of(Instant.parse("2026-11-29T02:00:00.123456Z"));
        assertThat(t.iso()).isEqualTo("2026-11-29T02:00:00.123Z");
        assertThat(t.utc()).isEqualTo("2026-11-29 02:00:00 UTC");
        assertThat(ZH_SHANGHAI.time(t.at())).isEqualTo("2026-11-29 10:00:00 GMT+8");
        assertThat(EN_UTC.time(t.at())).isEqualTo("2026-11-29 02:00:00 GMT");
        assertThat(new I18n(I18n.EN, ZoneId.of("Asia/Kolkata"), "/").time(t.at()))
                .isEqualTo("2026-11-29 07:30:00 GMT+5:30");
    }

    @Test
    void the_language_is_the_first_the_browser_accepts_that_ax_speaks_by_its_primary_language() {
        assertThat(I18n.accepted("zh-CN,zh;q=0.9,en;q=0.8")).contains(I18n.ZH_CN);
        assertThat(I18n.accepted("en-US,en;q=0.9")).contains(I18n.EN);
        assertThat(I18n.accepted("fr-FR,zh-TW;q=0.8,en;q=0.5")).contains(I18n.ZH_CN);
        assertThat(I18n.accepted("de;q=0.9,en;q=0.1")).contains(I18n.EN);
        assertThat(I18n.accepted("fr, de")).isEmpty();
        assertThat(I18n.accepted("*")).isEmpty();
        assertThat(I18n.accepted("not a ; header;;;q=x")).isEmpty();
        assertThat(I18n.accepted(null)).isEmpty();
        assertThat(I18n.supported("zh_cn")).contains(I18n.ZH_CN);
        assertThat(I18n.supported("EN")).contains(I18n.EN);
        assertThat(I18n.supported("fr")).isEmpty();
        assertThat(I18n.zone("Asia%2FShanghai")).isEqualTo(ZoneId.of("Asia/Shanghai"));
        assertThat(I18n.zone("Mars/Olympus")).isEqualTo(ZoneId.systemDefault());
    }
}
