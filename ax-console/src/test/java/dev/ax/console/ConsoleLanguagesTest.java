package dev.ax.console;

import static dev.ax.console.WebClient.form;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.store.TestDatabases;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every page in Chinese over plain HTTP (the language chosen with the header's switch), a refused action's message in
 * Chinese while the audit log keeps it in English, and the switch itself.
 */
class ConsoleLanguagesTest {
    static ConsoleServer server;
    static long run;

    @BeforeAll
    static void start() {
        server = new ConsoleServer(TestDatabases.h2());
        server.node
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "hello",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "echo hello")),
                        "test");
        run = server.node.tasks().trigger("hello", Map.of(), Cause.MANUAL, "test");
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> server.store
                                .tx(tx -> server.store.runs().find(tx, run))
                                .orElseThrow()
                                .state()
                        == RunState.SUCCESS);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** A logged-in admin whose switch says Chinese. */
    static WebClient chinese() {
        WebClient web = new WebClient(server.url());
        web.login(ConsoleServer.ADMIN);
        WebClient.Page switched = web.get("/language?to=zh-CN&next=/tasks");
        assertThat(switched.status()).isEqualTo(303);
        assertThat(switched.location()).isEqualTo("/tasks");
        return web;
    }

    @Test
    void every_page_renders_in_chinese_once_the_switch_says_so() {
        WebClient web = chinese();
        for (String path : List.of(
                "/",
                "/tasks",
                "/tasks/hello",
                "/tasks/hello/edit",
                "/tasks/hello/delete",
                "/new-task",
                "/runs",
                "/runs/" + run,
                "/workflows",
                "/executors",
                "/teams",
                "/tokens",
                "/my-tokens",
                "/audit",
                "/health")) {
            WebClient.Page p = web.get(path);
            assertThat(p.status()).as(path).isEqualTo(200);
            assertThat(p.body()).as(path).contains("<html lang=\"zh-CN\">", "主导航", "退出登录");
        }
        assertThat(web.get("/runs/" + run).body()).contains("成功 SUCCESS", "手动 manual", "触发链路");
        assertThat(web.get("/tokens").body()).contains("新建令牌", "永不过期（直到吊销）");
        assertThat(web.get("/runs?state=FAILED").body()).contains("没有符合条件的实例。", "失败 FAILED");
    }

    @Test
    void a_refused_action_says_why_in_chinese_and_the_audit_log_keeps_the_english() {
        WebClient web = chinese();
        String csrf = web.get("/runs/" + run).csrf();
        WebClient.Page refused = web.post("/runs/" + run + "/terminate", form("csrf", csrf, "back", "/runs/" + run));
        assertThat(refused.status()).isEqualTo(303);
        assertThat(web.get("/runs/" + run).body()).contains("实例 " + run + " 的状态是 SUCCESS；只有运行中（RUNNING）的实例才能终止");
        assertThat(web.get("/audit").body())
                .contains("run " + run + " is SUCCESS; only a RUNNING run can be terminated");

        WebClient.Page team = web.post("/teams", form("csrf", csrf, "back", "/teams", "name", "bad name!"));
        assertThat(team.status()).isEqualTo(400);
        assertThat(team.body()).contains("只能包含字母、数字");
    }

    @Test
    void the_switch_takes_only_a_language_ax_speaks_and_comes_back_only_to_this_site() {
        WebClient web = new WebClient(server.url());
        WebClient.Page elsewhere = web.get("/language?to=zh-CN&next=//evil.example/");
        assertThat(elsewhere.status()).isEqualTo(303);
        assertThat(elsewhere.location()).isEqualTo("/");
        assertThat(web.get("/login").body()).contains("<html lang=\"zh-CN\">", "登录 AX");
        WebClient.Page french = web.get("/language?to=fr&next=/login");
        assertThat(french.status()).isEqualTo(400);
        assertThat(french.body()).contains("to：只能是以下之一：en, zh-CN");
        assertThat(web.get("/language?to=en&next=/login").status()).isEqualTo(303);
        assertThat(web.get("/login").body()).contains("<html lang=\"en\">", "Log in to AX");
    }
}
