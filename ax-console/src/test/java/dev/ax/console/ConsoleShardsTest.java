package dev.ax.console;

import static dev.ax.console.WebClient.form;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.Cause;
import dev.ax.store.TestDatabases;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The run page of a sharded run shows a row per shard, with a link to each shard's own output. */
class ConsoleShardsTest {
    static ConsoleServer server;

    @BeforeAll
    static void start() {
        server = new ConsoleServer(TestDatabases.h2());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void the_run_page_shows_each_shard() {
        server.node
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "split",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "echo part $AX_SHARD_INDEX"),
                                "policy",
                                Map.of("sharding", Map.of("shards", 2))),
                        "test");
        long id = server.node.tasks().trigger("split", Map.of(), Cause.EVENT, "test");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> server.store
                        .tx(tx -> server.store.runs().find(tx, id))
                        .orElseThrow()
                        .state()
                        .isTerminal());

        WebClient web = new WebClient(server.url());
        web.post("/login", form("token", ConsoleServer.VIEWER, "next", "/"));
        String page = web.get("/runs/" + id).body();

        assertThat(page)
                .contains("id=\"shards\"")
                .contains("id=\"shard-0\"")
                .contains("id=\"shard-1\"")
                .contains("0 / 2")
                .contains("state-success\">SUCCESS")
                .contains("/api/runs/" + id + "/log?shard=1&amp;format=text")
                .contains("── shard 0 · attempt 1 ──")
                .contains("── shard 1 · attempt 1 ──");
    }
}
