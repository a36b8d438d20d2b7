package dev.ax.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.executor.ExecutorChannel;
import dev.ax.executor.HttpExecutorChannel;
import dev.ax.scheduler.SchedulerConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed §4.1: the handler committed its work, then its result report was lost; the scheduler re-delivered
 * the run. With {@link AxContext#runOnce} the work is not done twice.
 */
class LostReportTest {
    @TempDir
    Path dir;

    /** Forwards everything to the server, except that the first completion never arrives (the worker thinks it did). */
    static final class FirstCompletionLost implements ExecutorChannel {
        private final ExecutorChannel server;
        private final AtomicBoolean lost = new AtomicBoolean();
        final List<Completion> dropped = new CopyOnWriteArrayList<>();
        final List<WorkItem> delivered = new CopyOnWriteArrayList<>();

        FirstCompletionLost(ExecutorChannel server) {
            this.server = server;
        }

        @Override
        public ReportAnswer complete(Completion completion) {
            if (lost.compareAndSet(false, true)) {
                dropped.add(completion);
                return ReportAnswer.OK;
            }
            return server.complete(completion);
        }

        @Override
        public List<WorkItem> poll(Poll poll) {
            List<WorkItem> items = server.poll(poll);
            delivered.addAll(items);
            return items;
        }

        @Override
        public RegisterAnswer register(Register register) {
            return server.register(register);
        }

        @Override
        public HeartbeatAnswer heartbeat(Heartbeat heartbeat) {
            return server.heartbeat(heartbeat);
        }

        @Override
        public ReportAnswer started(Started started) {
            return server.started(started);
        }

        @Override
        public ReportAnswer log(LogChunk chunk) {
            return server.log(chunk);
        }
    }

    @Test
    void a_redelivered_run_whose_work_committed_is_not_done_again() throws Exception {
        JdbcDataSource shop = new JdbcDataSource();
        shop.setURL("jdbc:h2:mem:shop-lost-report;DB_CLOSE_DELAY=-1");
        try (Connection c = shop.getConnection();
                Statement s = c.createStatement()) {
            s.execute(
                    "CREATE TABLE orders (id BIGINT AUTO_INCREMENT PRIMARY KEY, request_id VARCHAR(200), amount INT)");
        }
        IdempotencyStore store = new IdempotencyStore(shop);
        store.createTable();
        List<String> results = new CopyOnWriteArrayList<>();
        String requestId;

        SchedulerConfig shortLease = SchedulerConfig.DEFAULT.withLeaseMillis(2000);
        try (TestAx ax = TestAx.start(dir, shortLease);
                HttpExecutorChannel http = new HttpExecutorChannel(ax.server.url(), TestAx.EXECUTOR_TOKEN)) {
            FirstCompletionLost channel = new FirstCompletionLost(http);
            try (AxWorker worker = AxWorker.builder()
                    .channel(channel)
                    .group("orders")
                    .executorId("shop-1")
                    .pollWait(Duration.ofSeconds(1))
                    .idempotencyStore(store)
                    .handler("placeOrder", ctx -> {
                        String result = ctx.runOnce(tx -> {
                            try (PreparedStatement ps = tx.prepareStatement(
                                    "INSERT INTO orders (request_id, amount) VALUES (?, ?)",
                                    Statement.RETURN_GENERATED_KEYS)) {
                                ps.setString(1, ctx.requestId());
                                ps.setInt(2, Integer.parseInt(ctx.param("amount")));
                                ps.executeUpdate();
                                try (ResultSet keys = ps.getGeneratedKeys()) {
                                    keys.next();
                                    return "order " + keys.getLong(1);
                                }
                            }
                        });
                        results.add(ctx.attempt() + ": " + result);
                        return result;
                    })
                    .build()
                    .start()) {
                ax.sdkTask("place_order", "placeOrder", "{\"maxRetries\":2,\"retryIntervalSeconds\":0}");

                long id = ax.client.trigger("place_order", Map.of("amount", 42));
                requestId = "ax-" + id;

                await().atMost(Duration.ofSeconds(30)).until(() -> ax.state(id).equals("SUCCESS"));
                JsonNode run = ax.client.instance(id);
                assertThat(channel.dropped).hasSize(1);
                assertThat(channel.dropped.getFirst().success())
                        .as("attempt 1 committed and succeeded")
                        .isTrue();
                assertThat(run.path("attempt").asInt())
                        .as("re-delivered after the lease expired")
                        .isEqualTo(2);
                assertThat(channel.delivered).extracting(WorkItem::attempt).containsExactly(1, 2);
                assertThat(channel.delivered).extracting(WorkItem::requestId).containsOnly("ax-" + id);
                assertThat(ax.client.events(id).path("items").findValuesAsText("type"))
                        .containsSubsequence("STARTED", "EXECUTOR_LOST", "CLAIMED", "STARTED", "SUCCEEDED");
                assertThat(results).containsExactly("1: order 1", "2: order 1");
                assertThat(run.path("message").asText()).isEqualTo("order 1");
                assertThat(ax.client.log(id)).contains("[ax] request ax-" + id + " was already done");
                assertThat(worker.errorCount()).isZero();
            }
        }
        try (Connection c = shop.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
            rs.next();
            assertThat(rs.getInt(1)).as("the order was placed exactly once").isEqualTo(1);
        }
        assertThat(store.find(requestId))
                .get()
                .extracting(IdempotencyStore.Recorded::result)
                .isEqualTo("order 1");
    }
}
