package dev.ax.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.run.FailureKind;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each way a handler ends, and the report it becomes. */
class OutcomesTest {
    private static final RunRef RUN = new RunRef(5, 2);

    record Case(
            String name, Completion completion, boolean success, FailureKind kind, Integer exitCode, String message) {}

    @Test
    void each_ending_maps_to_one_report() {
        List<Case> cases = List.of(
                new Case("returned a value", Outcomes.success("w", RUN, 42), true, null, 0, "42"),
                new Case("returned null", Outcomes.success("w", RUN, null), true, null, 0, null),
                new Case(
                        "threw",
                        Outcomes.failure("w", RUN, new IllegalStateException("down")),
                        false,
                        FailureKind.EXIT_CODE,
                        null,
                        "java.lang.IllegalStateException: down"),
                new Case(
                        "threw without a message",
                        Outcomes.failure("w", RUN, new RuntimeException(new IOException("reset"))),
                        false,
                        FailureKind.EXIT_CODE,
                        null,
                        "java.lang.RuntimeException: java.io.IOException: reset"),
                new Case(
                        "gave up",
                        Outcomes.failure("w", RUN, new NonRetryableException("no such order")),
                        false,
                        FailureKind.FATAL,
                        null,
                        "dev.ax.sdk.NonRetryableException: no such order"),
                new Case(
                        "timed out",
                        Outcomes.timeout("w", RUN, "sync", 30, false),
                        false,
                        FailureKind.TIMEOUT,
                        null,
                        "handler 'sync' ran longer than the timeout of 30 s and was interrupted"),
                new Case(
                        "no handler",
                        Outcomes.noHandler("w", RUN, "sycn", List.of("sync", "bill")),
                        false,
                        FailureKind.START_ERROR,
                        null,
                        "no handler 'sycn' registered in this worker (handlers: bill, sync)"));
        for (Case c : cases) {
            assertThat(c.completion().run()).as(c.name()).isEqualTo(RUN);
            assertThat(c.completion().success()).as(c.name()).isEqualTo(c.success());
            assertThat(c.completion().failureKind()).as(c.name()).isEqualTo(c.kind());
            assertThat(c.completion().exitCode()).as(c.name()).isEqualTo(c.exitCode());
            assertThat(c.completion().message()).as(c.name()).isEqualTo(c.message());
        }
    }

    @Test
    void a_long_message_is_cut() {
        Completion c = Outcomes.success("w", RUN, "x".repeat(Outcomes.MAX_MESSAGE_CHARS + 10));
        assertThat(c.message()).hasSize(Outcomes.MAX_MESSAGE_CHARS + 1).endsWith("…");
    }

    @Test
    void a_stack_trace_for_the_log_is_cut_too() {
        Throwable deep = new IllegalStateException("deep");
        StackTraceElement[] frames = new StackTraceElement[100];
        Arrays.fill(frames, new StackTraceElement("C", "m", "C.java", 1));
        deep.setStackTrace(frames);
        List<String> lines = Outcomes.trace(deep);
        assertThat(lines).hasSize(Outcomes.MAX_TRACE_LINES + 1).endsWith("\t... 61 more lines");
    }
}
