package dev.ax.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.ParsedTask;
import dev.ax.domain.task.TaskDefinitionCodec;
import dev.ax.domain.task.ValidationException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The messages of the API's validators in Chinese. The definitions below are sent through the real codec, so a message
 * that changes wording there, or a new one, shows up here as untranslated rather than silently in English.
 */
class ReasonsTest {
    static final I18n ZH = new I18n(I18n.ZH_CN, ZoneId.of("Asia/Shanghai"), "/");
    static final I18n EN = new I18n(I18n.EN, ZoneId.of("UTC"), "/");

    /** Definitions that are wrong in every way the editor reports, a few ways at a time. */
    static final List<String> BROKEN = List.of("""
            {"taskName":"bad name!","trigger":{"type":"weekly"},"action":{"type":"shell"},"policy":{},"extra":1}""", """
            {"taskName":"t","trigger":{"type":"cron","expression":"0 2 * * *","timezone":"Mars/Base"},
             "action":{"type":"shell","command":"echo {{unknown}} `{{params.day}}`","env":{"AX_X":"1","1bad":"x"}},
             "policy":{"maxRetries":-1,"timeoutSeconds":"soon","misfire":"LATER","retryable":"maybe",
                       "retryBackoff":"RANDOM","retryJitter":3,"overflow":"NEVER","notifyOnSuccess":"SOMETIMES",
                       "notifyOnFailure":["pager"],"retention":"P5000D","maxConcurrency":0}}""", """
            {"taskName":"t","trigger":{"type":"interval","intervalSeconds":0},
             "action":{"type":"http","method":"FETCH","url":"ftp://x","body":7},
             "params":{"day":{"type":"when"},"n":{"type":"integer","min":5,"max":1,"required":true,"default":3},
                       "s":{"type":"string","pattern":"(","items":{}},"bad name":{}},
             "dependsOn":[{"task":"t","scope":"sameDate"},{"task":"u","scope":"someday"}],
             "dependencyPolicy":{"onUpstreamFailure":"PANIC"},"environment":["prod","prod"]}""", """
            {"taskName":"t","trigger":{"type":"event"},"action":{"type":"robot"},
             "policy":{"approval":{"approvers":["team:"]},"sharding":{"mode":"each"},
                       "onFailedActions":[{"type":"email"},{"type":"webhook","url":"x"}]}}""", """
            {"taskName":"t","trigger":{"type":"cron","expression":"0 2 * * *"},
             "action":{"type":"shell","command":"echo {{params.day}} {{ }}"},"params":{"day":{"type":"date","required":true}},
             "policy":{"idempotencyKey":"{{attempt}}"}}""", """
            {"taskName":"t","trigger":{"type":"cron","expression":"0 2 * * *"},
             "action":{"type":"shell","command":"echo {{secret.db}}"},"policy":{"sharding":{"mode":"broadcast","shards":2}}}""");

    @Test
    void every_reason_the_editor_shows_for_these_definitions_is_translated() {
        List<String> reasons = new ArrayList<>();
        for (String json : BROKEN) {
            try {
                ParsedTask parsed = TaskDefinitionCodec.parse(TaskPages.parse(json), Set.of());
                reasons.addAll(parsed.warnings());
            } catch (ValidationException e) {
                e.errors().stream().map(FieldError::reason).forEach(reasons::add);
            }
        }
        assertThat(reasons).hasSizeGreaterThan(40);
        List<String> untranslated = reasons.stream()
                .filter(r -> !Reasons.of(ZH, r).translated())
                .distinct()
                .toList();
        assertThat(untranslated).as("reasons with no Chinese").isEmpty();
    }

    @Test
    void a_reason_keeps_its_values_and_puts_a_nested_one_in_the_same_words() {
        assertThat(Reasons.of(ZH, "no task named nightly").text()).isEqualTo("没有名为 nightly 的任务");
        assertThat(Reasons.of(ZH, "task nightly already exists; use PUT /api/tasks/nightly to change it")
                        .text())
                .isEqualTo("任务 nightly 已存在；要修改它请用 PUT /api/tasks/nightly");
        // A value named twice must be the same text both times, or it is not this message.
        assertThat(Reasons.of(ZH, "task a already exists; use PUT /api/tasks/b to change it")
                        .translated())
                .isFalse();
        assertThat(Reasons.of(
                                ZH,
                                "{{params.day}} at position 6 stands inside backquotes, where quotes are read twice;"
                                        + " use $( ) instead")
                        .text())
                .isEqualTo("第 6 个字符处的 {{params.day}} 位于反引号中，那里的引号会被解析两次；请改用 $( )");
        assertThat(Reasons.of(ZH, "run 7 is SUCCESS; only a RUNNING run can be terminated")
                        .text())
                .isEqualTo("实例 7 的状态是 SUCCESS；只有运行中（RUNNING）的实例才能终止");
    }

    @Test
    void the_routine_messages_of_a_runs_timeline_read_in_chinese() {
        assertThat(Reasons.of(ZH, "triggered by admin; 0 of 1 runs active").text())
                .isEqualTo("由 admin 触发；当前运行中 0/1 个");
        assertThat(Reasons.of(ZH, "exited with code 3; attempt 2 of 3 in 5s").text())
                .isEqualTo("退出码 3；第 2/3 次尝试将在 5s 后开始");
        assertThat(Reasons.of(ZH, "waiting for approval by any operator or admin; expires in 60s")
                        .text())
                .isEqualTo("等待 任意 operator 或 admin 审批；60 秒后过期");
        assertThat(Reasons.of(ZH, "approved by admin: checked the order ids").text())
                .isEqualTo("admin 已批准：checked the order ids");
    }

    @Test
    void english_is_shown_as_the_api_said_it_and_an_unknown_message_as_it_is() {
        Reasons.Reason en = Reasons.of(EN, "no task named nightly");
        assertThat(en.text()).isEqualTo("no task named nightly");
        assertThat(en.translated()).isFalse();
        Reasons.Reason unknown = Reasons.of(ZH, "the moon is not in the right phase");
        assertThat(unknown.text()).isEqualTo("the moon is not in the right phase");
        assertThat(unknown.translated()).isFalse();
    }

    @Test
    void a_validation_refusal_is_shown_field_by_field_in_the_persons_words() {
        ValidationException e = new ValidationException(List.of(
                new FieldError("params.day", "must be a date such as 2026-01-31"),
                new FieldError("", "the task definition is missing")));
        Reasons.Reason r = Reasons.of(ZH, e);
        assertThat(r.text()).isEqualTo("params.day: 必须是日期，例如 2026-01-31; 缺少任务定义");
        assertThat(r.english()).isEqualTo(e.getMessage());
    }

    @Test
    void a_key_whose_values_skip_a_number_is_refused() {
        assertThatThrownBy(() -> Reasons.Rule.of("reason.x", "from {0} to {2}"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("reason.x");
        assertThat(Reasons.Rule.of("reason.y", "{1} before {0}").values("b before a"))
                .containsExactly("a", "b");
    }
}
