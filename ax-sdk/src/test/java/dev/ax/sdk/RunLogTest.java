package dev.ax.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.executor.ExecutorChannel.ChannelException;
import dev.ax.executor.HttpExecutorChannel;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class RunLogTest {
    private final FakeChannel channel = new FakeChannel();
    private final AtomicReference<String> refused = new AtomicReference<>();
    private final RunLog log = new RunLog(channel, "w-1", new RunRef(7, 1), refused::set);

    @Test
    void ships_every_line_in_order_across_streams_before_finish_returns() throws Exception {
        log.append(RunLog.STDOUT, "one");
        log.append(RunLog.STDOUT, "two\nthree");
        log.append(RunLog.STDERR, "oops");
        log.append(RunLog.STDOUT, "");
        log.startSending();

        log.finish();

        assertThat(channel.lines())
                .containsExactly("stdout: one", "stdout: two", "stdout: three", "stderr: oops", "stdout: ");
        assertThat(channel.chunks)
                .allMatch(c -> c.executorId().equals("w-1") && c.run().equals(new RunRef(7, 1)));
    }

    @Test
    void holds_lines_until_sending_starts() throws Exception {
        log.append(RunLog.STDOUT, "early");
        assertThat(channel.chunks).isEmpty();
        log.startSending();
        await().atMost(Duration.ofSeconds(5)).until(() -> channel.lines().contains("stdout: early"));
        log.finish();
    }

    @Test
    void keeps_the_newest_lines_while_the_server_is_unreachable_and_says_how_many_were_dropped() throws Exception {
        AtomicBoolean down = new AtomicBoolean(true);
        channel.onLog = chunk -> {
            if (down.get()) {
                throw new ChannelException("connection refused", null);
            }
            return ReportAnswer.OK;
        };
        log.startSending();
        int total = RunLog.MAX_BUFFERED_LINES + RunLog.BATCH_LINES + 50;
        for (int i = 1; i <= total; i++) {
            log.append(RunLog.STDOUT, "line " + i);
        }
        down.set(false);

        log.finish();

        // The batch in flight when the outage began is kept; the oldest buffered lines after it were dropped.
        assertThat(channel.lines()).contains("stdout: line " + total);
        assertThat(channel.lines())
                .anyMatch(l -> l.matches("stderr: \\[ax] \\d+ log lines dropped: server unreachable"));
        assertThat(channel.lines().size()).isLessThan(total);
        assertThat(refused.get()).isNull();
    }

    @Test
    void a_refused_chunk_stops_the_log_and_tells_the_owner() throws Exception {
        channel.onLog = chunk -> ReportAnswer.refused("attempt 1 of instance 7 is not held by w-1");
        log.append(RunLog.STDOUT, "too late");
        log.startSending();

        log.finish();

        assertThat(refused.get()).isEqualTo("attempt 1 of instance 7 is not held by w-1");
        assertThat(channel.chunks).isEmpty();
        log.append(RunLog.STDOUT, "ignored");
        assertThat(channel.chunks).isEmpty();
    }

    @Test
    void keeps_every_chunk_within_a_batch_of_json_bytes_and_sends_a_huge_line_in_pieces() throws Exception {
        String huge = "\u0001".repeat(100_000); // 100 KB logged, 600 KB as JSON
        for (int i = 0; i < 150; i++) {
            log.append(RunLog.STDOUT, "line " + i + " " + "x".repeat(2_000));
        }
        log.append(RunLog.STDERR, huge);
        log.startSending();

        log.finish();

        var json = HttpExecutorChannel.defaultMapper();
        for (var chunk : channel.chunks) {
            // The lines as JSON, each with its comma (LogLines' measure), without the array's brackets.
            assertThat(json.writeValueAsBytes(chunk.lines()).length - 1).isLessThanOrEqualTo(RunLog.BATCH_BYTES);
        }
        assertThat(channel.lines().stream()
                        .filter(l -> l.startsWith("stdout: "))
                        .count())
                .isEqualTo(150);
        assertThat(String.join(
                        "",
                        channel.lines().stream()
                                .filter(l -> l.startsWith("stderr: "))
                                .map(l -> l.substring("stderr: ".length()))
                                .toList()))
                .isEqualTo(huge);
    }
}
