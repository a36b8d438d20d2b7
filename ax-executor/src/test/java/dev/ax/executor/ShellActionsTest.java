package dev.ax.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.FailureKind;
import dev.ax.executor.shell.ShellCommand;
import dev.ax.executor.shell.ShellResult;
import dev.ax.executor.shell.ShellResult.Outcome;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ShellActionsTest {

    private static final RunRef RUN = new RunRef(9, 3);

    private static ShellResult result(Outcome outcome, Integer code) {
        return new ShellResult(outcome, code, 123, Duration.ofMillis(5), "msg " + outcome);
    }

    private static Optional<Completion> completion(Outcome outcome, Integer code) {
        return ShellActions.completion("exec-1", RUN, result(outcome, code));
    }

    @Test
    void maps_each_shell_outcome_to_a_report() {
        assertThat(completion(Outcome.EXITED, 0)).contains(new Completion("exec-1", RUN, true, null, 0, "msg EXITED"));
        assertThat(completion(Outcome.EXITED, 3))
                .contains(new Completion("exec-1", RUN, false, FailureKind.EXIT_CODE, 3, "msg EXITED"));
        assertThat(completion(Outcome.EXITED, 143))
                .contains(new Completion("exec-1", RUN, false, FailureKind.EXIT_CODE, 143, "msg EXITED"));
        assertThat(completion(Outcome.TIMED_OUT, null))
                .contains(new Completion("exec-1", RUN, false, FailureKind.TIMEOUT, null, "msg TIMED_OUT"));
        assertThat(completion(Outcome.START_FAILED, null))
                .contains(new Completion("exec-1", RUN, false, FailureKind.START_ERROR, null, "msg START_FAILED"));
        assertThat(completion(Outcome.KILLED, null))
                .as("the server already decided")
                .isEmpty();
    }

    @Test
    void builds_the_command_with_ax_variables_working_dir_and_timeout() {
        WorkItem item = new WorkItem(
                9,
                3,
                "nightly",
                2,
                "req-9",
                Instant.parse("2024-03-01T02:00:00Z"),
                "shell",
                "python x.py",
                Map.of("A", "1", "AX_ATTEMPT", "99"),
                "/tmp",
                60L,
                30_000);

        ShellCommand command = ShellActions.command(item, "AX_EXECUTOR_RUN", "s 1:1 e");

        assertThat(command.command()).isEqualTo("python x.py");
        assertThat(command.env())
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "A", "1",
                        "AX_INSTANCE_ID", "9",
                        "AX_ATTEMPT", "3",
                        "AX_TASK_NAME", "nightly",
                        "AX_REQUEST_ID", "req-9",
                        "AX_SCHEDULED_AT", "2024-03-01T02:00:00Z",
                        "AX_EXECUTOR_RUN", "s 1:1 e"));
        assertThat(command.workingDir()).isEqualTo(Path.of("/tmp"));
        assertThat(command.timeout()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void no_timeout_and_no_working_dir_when_the_item_has_none() {
        WorkItem item = new WorkItem(9, 3, "t", 1, null, null, "shell", "true", null, " ", null, 30_000);

        ShellCommand command = ShellActions.command(item, "AX_EXECUTOR_RUN", "s 1:1 e");

        assertThat(command.timeout()).isNull();
        assertThat(command.workingDir()).isNull();
        assertThat(command.env()).containsOnlyKeys("AX_INSTANCE_ID", "AX_ATTEMPT", "AX_TASK_NAME", "AX_EXECUTOR_RUN");
    }

    @Test
    void refuses_an_item_without_a_command() {
        WorkItem item = new WorkItem(9, 3, "t", 1, null, null, "shell", " ", null, null, null, 30_000);

        assertThatThrownBy(() -> ShellActions.command(item, "AX_EXECUTOR_RUN", "s 1:1 e"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no command");
    }

    @Test
    void a_shard_gets_its_index_and_total_and_its_own_attempt_in_the_environment() {
        WorkItem whole = new WorkItem(
                9,
                1,
                "split",
                2,
                "ax-9",
                Instant.parse("2024-03-01T02:00:00Z"),
                "shell",
                "run",
                Map.of(),
                null,
                null,
                30_000);
        WorkItem shard = whole.asShard(2, 3, 4, "ax-9:shard-3");

        ShellCommand cmd = ShellActions.command(shard, "AX_EXECUTOR_RUN", "s 1:1 e");

        assertThat(cmd.env())
                .containsEntry("AX_SHARD_INDEX", "3")
                .containsEntry("AX_SHARD_TOTAL", "4")
                .containsEntry("AX_ATTEMPT", "2")
                .containsEntry("AX_REQUEST_ID", "ax-9:shard-3");
        assertThat(shard.ref()).isEqualTo(new RunRef(9, 2, 3));
        assertThat(ShellActions.command(whole, "AX_EXECUTOR_RUN", "s 1:1 e").env())
                .doesNotContainKeys("AX_SHARD_INDEX", "AX_SHARD_TOTAL");
    }
}
