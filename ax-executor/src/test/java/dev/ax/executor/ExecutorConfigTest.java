package dev.ax.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExecutorConfigTest {

    private static final ExecutorConfig VALID = ExecutorConfig.of("exec-1", List.of("default"));

    @Test
    void fills_in_the_defaults() {
        assertThat(VALID.concurrency())
                .isEqualTo(ExecutorConfig.DEFAULT_CONCURRENCY)
                .isEqualTo(8);
        assertThat(VALID.pollWaitMillis())
                .isEqualTo(ExecutorConfig.DEFAULT_POLL_WAIT_MILLIS)
                .isEqualTo(20_000);
        assertThat(VALID.killGrace())
                .isEqualTo(ExecutorConfig.DEFAULT_KILL_GRACE)
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(VALID.version()).isEqualTo(ExecutorConfig.DEFAULT_VERSION).isNotBlank();
    }

    @Test
    void rejects_each_bad_value_naming_the_field() {
        assertThatThrownBy(() -> ExecutorConfig.of(" ", List.of("default"))).hasMessageContaining("executorId");
        assertThatThrownBy(() -> ExecutorConfig.of(null, List.of("default"))).hasMessageContaining("executorId");
        assertThatThrownBy(() -> ExecutorConfig.of("e", List.of())).hasMessageContaining("groups");
        assertThatThrownBy(() -> ExecutorConfig.of("e", null)).hasMessageContaining("groups");
        assertThatThrownBy(() -> ExecutorConfig.of("e", Arrays.asList("a", null)))
                .hasMessageContaining("groups");
        assertThatThrownBy(() -> VALID.withConcurrency(0)).hasMessageContaining("concurrency");
        assertThatThrownBy(() -> VALID.withPollWaitMillis(-1)).hasMessageContaining("pollWaitMillis");
        assertThatThrownBy(() -> VALID.withKillGrace(Duration.ofSeconds(-1))).hasMessageContaining("killGrace");
        assertThatThrownBy(() -> VALID.withKillGrace(null)).hasMessageContaining("killGrace");
        assertThatThrownBy(() -> VALID.withVersion("")).hasMessageContaining("version");
        assertThatThrownBy(() -> VALID.withConcurrency(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void copies_the_groups() {
        List<String> groups = new ArrayList<>(List.of("a"));
        ExecutorConfig config = ExecutorConfig.of("e", groups);
        groups.add("b");
        assertThat(config.groups()).containsExactly("a");
    }
}
