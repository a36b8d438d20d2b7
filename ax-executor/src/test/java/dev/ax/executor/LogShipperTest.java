package dev.ax.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.executor.shell.OutputSink.Stream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.IntStream;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LogShipperTest {

    private static final RunRef RUN = new RunRef(7, 2);
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final FakeChannel server = new FakeChannel();
    private final List<String> refusals = new CopyOnWriteArrayList<>();
    private final LongAdder errors = new LongAdder();

    @AfterEach
    void noUnexpectedErrors() {
        assertThat(errors.sum()).isZero();
    }

    private LogShipper shipper(LogShipper.Limits limits) {
        return new LogShipper(server, "exec-1", RUN, limits, refusals::add, errors);
    }

    private static List<String> numbered(int from, int to) {
        return IntStream.rangeClosed(from, to).mapToObj(i -> "line " + i).toList();
    }

    private List<String> shipped(String stream) {
        return server.linesOf(RUN.instanceId(), stream);
    }

    @Test
    void ships_in_batches_of_at_most_200_lines_and_sends_the_rest_on_finish() throws Exception {
        LogShipper shipper = shipper(LogShipper.Limits.DEFAULT);
        shipper.startSending();
        numbered(1, 450).forEach(line -> shipper.line(Stream.STDOUT, line));

        shipper.finish();

        assertThat(shipped("stdout")).containsExactlyElementsOf(numbered(1, 450));
        assertThat(server.logs).allSatisfy(chunk -> {
            assertThat(chunk.lines()).hasSizeLessThanOrEqualTo(200);
            assertThat(chunk.executorId()).isEqualTo("exec-1");
            assertThat(chunk.run()).isEqualTo(RUN);
        });
    }

    @Test
    void hands_over_what_is_left_for_the_completion_instead_of_sending_it() throws Exception {
        LogShipper shipper = shipper(LogShipper.Limits.DEFAULT);
        shipper.startSending();
        shipper.line(Stream.STDOUT, "out");
        shipper.line(Stream.STDERR, "err");
        shipper.line(Stream.STDOUT, "out again");

        List<LogChunk> tail = shipper.handOver();

        assertThat(server.logs).isEmpty();
        assertThat(tail)
                .extracting(LogChunk::stream, LogChunk::lines)
                .containsExactly(
                        Tuple.tuple("stdout", List.of("out", "out again")), Tuple.tuple("stderr", List.of("err")));
        assertThat(tail).allSatisfy(chunk -> {
            assertThat(chunk.executorId()).isEqualTo("exec-1");
            assertThat(chunk.run()).isEqualTo(RUN);
        });
    }

    @Test
    void ships_all_but_the_last_batch_before_handing_over_and_keeps_the_order() throws Exception {
        LogShipper shipper = shipper(LogShipper.Limits.DEFAULT);
        shipper.startSending();
        numbered(1, 450).forEach(line -> shipper.line(Stream.STDOUT, line));

        List<LogChunk> tail = shipper.handOver();

        assertThat(tail).hasSize(1);
        assertThat(tail.getFirst().lines()).hasSizeLessThan(200).isNotEmpty();
        List<String> all = new ArrayList<>(shipped("stdout"));
        all.addAll(tail.getFirst().lines());
        assertThat(all).containsExactlyElementsOf(numbered(1, 450));
    }

    @Test
    void hands_over_nothing_once_the_server_refused_its_log() throws Exception {
        server.logAnswer = chunk -> ReportAnswer.refused("lease lost");
        LogShipper shipper = shipper(LogShipper.Limits.DEFAULT);
        shipper.startSending();
        numbered(1, 250).forEach(line -> shipper.line(Stream.STDOUT, line));

        assertThat(shipper.handOver()).isEmpty();
        assertThat(refusals).containsExactly("lease lost");
    }

    @Test
    void cuts_batches_at_64_kib() throws Exception {
        LogShipper shipper = shipper(LogShipper.Limits.DEFAULT);
        String kib = "x".repeat(1024);
        IntStream.range(0, 100).forEach(i -> shipper.line(Stream.STDOUT, kib));

        shipper.finish();

        assertThat(shipped("stdout")).hasSize(100);
        assertThat(server.logs).allSatisfy(chunk -> assertThat(chunk.lines()).hasSizeLessThanOrEqualTo(64));
    }

    @Test
    void flushes_a_few_lines_within_the_flush_period_without_waiting_for_the_end() {
        LogShipper shipper = shipper(LogShipper.Limits.DEFAULT);
        shipper.startSending();
        shipper.line(Stream.STDOUT, "early");

        await().atMost(Duration.ofSeconds(2)).until(() -> shipped("stdout").equals(List.of("early")));
        shipper.abort();
    }

    @Test
    void keeps_order_and_loses_nothing_through_a_short_outage() throws Exception {
        server.failLogs.set(3);
        LogShipper shipper = shipper(LogShipper.Limits.DEFAULT);
        shipper.startSending();
        numbered(1, 500).forEach(line -> shipper.line(Stream.STDOUT, line));

        shipper.finish();

        assertThat(shipped("stdout")).containsExactlyElementsOf(numbered(1, 500));
        assertThat(shipped("stderr")).isEmpty();
    }

    @Test
    void drops_the_oldest_lines_beyond_its_cap_and_says_how_many() throws Exception {
        LogShipper.Limits small = new LogShipper.Limits(200, 64 * 1024, Duration.ofMillis(250), 10, 1_000_000);
        LogShipper shipper = shipper(small);
        numbered(1, 25).forEach(line -> shipper.line(Stream.STDOUT, line)); // not sending yet: the buffer fills

        shipper.finish();

        assertThat(shipped("stderr")).containsExactly("[ax] 15 lines dropped: server unreachable");
        assertThat(shipped("stdout")).containsExactlyElementsOf(numbered(16, 25));
    }

    @Test
    void sends_one_chunk_per_stream_of_a_batch() throws Exception {
        LogShipper shipper = shipper(LogShipper.Limits.DEFAULT);
        shipper.line(Stream.STDOUT, "out 1");
        shipper.line(Stream.STDERR, "err 1");
        shipper.line(Stream.STDOUT, "out 2");

        shipper.finish();

        assertThat(server.logs).extracting(LogChunk::stream).containsExactly("stdout", "stderr");
        assertThat(shipped("stdout")).containsExactly("out 1", "out 2");
        assertThat(shipped("stderr")).containsExactly("err 1");
    }

    @Test
    void stops_and_tells_its_owner_when_the_server_refuses_a_chunk() throws Exception {
        server.logAnswer = chunk -> ReportAnswer.refused("lease lost");
        LogShipper shipper = shipper(LogShipper.Limits.DEFAULT);
        shipper.startSending();
        numbered(1, 300).forEach(line -> shipper.line(Stream.STDOUT, line));

        shipper.finish();

        assertThat(refusals).containsExactly("lease lost");
        assertThat(shipper.aborted()).isTrue();
        assertThat(server.logs).isEmpty();
    }

    @Test
    void never_blocks_the_output_reader_while_the_server_hangs() throws Exception {
        CountDownLatch serverStuck = new CountDownLatch(1);
        server.logAnswer = chunk -> {
            try {
                serverStuck.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ReportAnswer.OK;
        };
        LogShipper shipper = shipper(LogShipper.Limits.DEFAULT);
        shipper.startSending();

        // 5,000 lines = 25 batches; the first send hangs. line() must still return at once, every time.
        assertTimeoutPreemptively(
                PATIENCE, () -> numbered(1, 5_000).forEach(line -> shipper.line(Stream.STDOUT, line)));

        serverStuck.countDown();
        shipper.finish();
        assertThat(shipped("stdout")).containsExactlyElementsOf(numbered(1, 5_000));
    }

    @Test
    void keeps_every_chunk_and_the_handed_over_tail_within_a_batch_of_json_whatever_a_line_holds() throws Exception {
        LogShipper.Limits limits = new LogShipper.Limits(200, 1024, Duration.ofMillis(20), 10_000, 1L << 20);
        LogShipper shipper = shipper(limits);
        shipper.startSending();
        String controls = "\u0001".repeat(3_000); // 3 KB of output, 18 KB as JSON
        String emoji = "\ud83d\ude00".repeat(1_000);
        shipper.line(Stream.STDOUT, controls);
        numbered(1, 300).forEach(line -> shipper.line(Stream.STDOUT, line));
        shipper.line(Stream.STDOUT, emoji);

        List<LogChunk> tail = shipper.handOver();

        var json = HttpExecutorChannel.defaultMapper();
        for (LogChunk chunk : java.util.stream.Stream.concat(server.logs.stream(), tail.stream())
                .toList()) {
            // The lines as JSON, each with its comma (LogLines' measure), without the array's brackets.
            assertThat(json.writeValueAsBytes(chunk.lines()).length - 1).isLessThanOrEqualTo(1024);
        }
        List<String> all = new ArrayList<>(shipped("stdout"));
        tail.forEach(chunk -> all.addAll(chunk.lines()));
        // Every line arrives, the long ones in pieces that join back into them.
        assertThat(String.join(
                        "", all.stream().filter(l -> l.startsWith("\u0001")).toList()))
                .isEqualTo(controls);
        assertThat(all.stream().filter(l -> l.startsWith("line ")).toList()).isEqualTo(numbered(1, 300));
        assertThat(String.join(
                        "", all.stream().filter(l -> l.startsWith("\ud83d")).toList()))
                .isEqualTo(emoji);
    }
}
