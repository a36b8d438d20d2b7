package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code ax run show} lists a sharded run's shards; {@code ax run log --shard N} prints one shard's output. */
class ShardCliTest {
    @RegisterExtension
    static final CliServer cli = new CliServer("cli-shard-test");

    static Cli.Result ax(String... args) {
        return cli.ax(args);
    }

    @Test
    void show_lists_the_shards_and_log_prints_one_shard() throws Exception {
        Path task = Files.writeString(cli.dir().resolve("split.json"), """
                {"taskName":"split","trigger":{"type":"event"},"action":{"type":"shell","command":"echo part-$AX_SHARD_INDEX"},
                 "policy":{"sharding":{"shards":2}}}
                """);
        assertThat(ax("task", "apply", "-f", task.toString()).exitCode()).isZero();
        Cli.Result r = ax("trigger", "split", "--wait", "--timeout", "60");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        String id = r.out().lines().findFirst().orElseThrow();

        Cli.Result show = ax("instance", "show", id);
        assertThat(show.out())
                .as(show.toString())
                .contains("SHARD")
                .containsPattern("0/2\\s+SUCCESS\\s+1")
                .containsPattern("1/2\\s+SUCCESS\\s+1");
        Cli.Result log = ax("instance", "log", id, "--shard", "1");
        assertThat(log.out()).as(log.toString()).isEqualTo("part-1\n");
    }
}
