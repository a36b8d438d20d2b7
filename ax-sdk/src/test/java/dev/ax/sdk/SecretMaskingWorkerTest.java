package dev.ax.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker whose work carries secrets ({@code WorkItem.masks}) writes *** for them in everything it sends: the lines a
 * handler logs (a value of several lines, line by line) and the message of the exception it threw. The server is real;
 * the channel in between only adds the masks to the work and records what the worker sends.
 */
class SecretMaskingWorkerTest {
    static final String TOKEN = "tok-51f0e2d9a7";
    static final String KEY = "-----BEGIN KEY-----\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ\n-----END KEY-----";

    @TempDir
    Path dir;

    /** Forwards to the server, giving each polled item the masks a server would give work that uses these secrets. */
    static final class WithMasks implements ExecutorChannel {
        private final ExecutorChannel server;
        final List<LogChunk> sentLogs = new CopyOnWriteArrayList<>();
        final List<Completion> sentCompletions = new CopyOnWriteArrayList<>();

        WithMasks(ExecutorChannel server) {
            this.server = server;
        }

        @Override
        public List<WorkItem> poll(Poll poll) {
            return server.poll(poll).stream()
                    .map(item -> item.withMasks(List.of(TOKEN, KEY)))
                    .toList();
        }

        @Override
        public ReportAnswer log(LogChunk chunk) {
            sentLogs.add(chunk);
            return server.log(chunk);
        }

        @Override
        public ReportAnswer complete(Completion completion) {
            sentCompletions.add(completion);
            return server.complete(completion);
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
    }

    @Test
    void what_a_handler_logs_and_throws_leaves_the_worker_masked() throws Exception {
        try (TestAx ax = TestAx.start(dir);
                HttpExecutorChannel http = new HttpExecutorChannel(ax.server.url(), TestAx.EXECUTOR_TOKEN)) {
            WithMasks channel = new WithMasks(http);
            try (AxWorker worker = AxWorker.builder()
                    .channel(channel)
                    .group("orders")
                    .executorId("shop-1")
                    .pollWait(Duration.ofSeconds(1))
                    .handler("callPartner", ctx -> {
                        ctx.log("calling with token " + TOKEN);
                        ctx.log(KEY);
                        throw new IllegalStateException("partner refused token " + TOKEN);
                    })
                    .build()
                    .start()) {
                ax.sdkTask("call_partner", "callPartner", "{\"maxRetries\":0}");

                long id = ax.client.trigger("call_partner", Map.of());

                await().atMost(Duration.ofSeconds(30)).until(() -> ax.state(id).equals("FAILED"));
                String sent = String.join(
                                "\n",
                                channel.sentLogs.stream()
                                        .flatMap(c -> c.lines().stream())
                                        .toList()) + "\n"
                        + channel.sentCompletions.getFirst().message();
                assertThat(sent)
                        .contains("calling with token ***", "partner refused token ***")
                        .doesNotContain(TOKEN)
                        .doesNotContain("AAAAB3NzaC1yc2E")
                        .doesNotContain("BEGIN KEY");
                assertThat(ax.client.log(id))
                        .contains("calling with token ***\n***\n***\n***")
                        .doesNotContain(TOKEN);
                assertThat(ax.client.instance(id).path("message").asText())
                        .contains("***")
                        .doesNotContain(TOKEN);
                assertThat(worker.errorCount()).isZero();
            }
        }
    }
}
