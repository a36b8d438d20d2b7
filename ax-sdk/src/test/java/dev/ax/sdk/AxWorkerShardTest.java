package dev.ax.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An SDK handler of a sharded task runs once per shard and sees which shard it is. */
class AxWorkerShardTest {
    @TempDir
    Path dir;

    TestAx ax;
    AxWorker worker;

    @BeforeEach
    void startServer() {
        ax = TestAx.start(dir);
    }

    @AfterEach
    void stop() {
        if (worker != null) {
            worker.close();
            assertThat(worker.errorCount()).isZero();
        }
        ax.close();
    }

    @Test
    void each_shard_sees_its_index_and_total() {
        List<String> seen = new CopyOnWriteArrayList<>();
        worker = ax.worker("orders")
                .handler("syncPart", ctx -> {
                    seen.add(ctx.shardIndex() + "/" + ctx.shardTotal() + " attempt " + ctx.attempt() + " "
                            + ctx.requestId());
                    return "part " + ctx.shardIndex();
                })
                .build()
                .start();
        ax.sdkTask("sync_parts", "syncPart", "{\"sharding\":{\"shards\":3}}");

        long id = ax.client.trigger("sync_parts", Map.of());

        await().atMost(Duration.ofSeconds(20)).until(() -> ax.state(id).equals("SUCCESS"));
        assertThat(seen)
                .containsExactlyInAnyOrder(
                        "0/3 attempt 1 ax-" + id + ":shard-0",
                        "1/3 attempt 1 ax-" + id + ":shard-1",
                        "2/3 attempt 1 ax-" + id + ":shard-2");
        assertThat(ax.client.instance(id).path("shards")).hasSize(3);
    }
}
