package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.event;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.store.DbConfig;
import dev.ax.store.LogStore;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two nodes with one key on one database: a secret set on one is masked by the other within a few seconds. */
abstract class SecretClusterTest {
    /** A fresh database the nodes share. */
    abstract DbConfig config();

    Store storeA;
    Store storeB;

    @BeforeEach
    void open() {
        DbConfig db = config();
        storeA = Store.open(db);
        storeB = Store.open(db);
    }

    @AfterEach
    void close() {
        storeA.close();
        storeB.close();
    }

    @Test
    void a_secret_set_on_one_node_is_masked_by_the_other_in_what_it_stores() throws InterruptedException {
        MasterKey key = MasterKey.random();
        try (SchedulerNode a =
                        TestNodes.node(storeA, "node-a", Keyring.inMemory(key)).start();
                SchedulerNode b =
                        TestNodes.node(storeB, "node-b", Keyring.inMemory(key)).start()) {
            b.dispatcher()
                    .register(new Register(
                            "exec-b", UUID.randomUUID().toString(), List.of("default"), "test", 1, "test", List.of()));
            a.tasks().create(task("job", event(), "./print-config.sh", null), "alice");
            long id = a.tasks().trigger("job", Map.of(), Cause.MANUAL, "alice");
            WorkItem item = b.dispatcher()
                    .poll(new Poll("exec-b", List.of("default"), 10, 0))
                    .getFirst();

            a.secrets().set("api_token", "tok-7c1e9a55", "alice");

            assertThat(a.secrets().mask().apply("token=tok-7c1e9a55"))
                    .as("at once on the node that set it")
                    .isEqualTo("token=***");
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> b.secrets().mask().apply("tok-7c1e9a55").equals("***"));
            b.dispatcher().log(new LogChunk("exec-b", item.ref(), "stdout", List.of("token=tok-7c1e9a55")));
            List<LogStore.LogLine> log = storeB.tx(tx -> storeB.logs().read(tx, id, 0, 10));
            assertThat(log).extracting(LogStore.LogLine::text).containsExactly("token=***");

            a.secrets().set("api_token", "tok-2b0f31d8", "alice");
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> b.secrets().mask().apply("tok-2b0f31d8").equals("***"));
            assertThat(b.loopErrors()).isZero();
        }
    }
}
