package dev.ax.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A bad setting fails the build with the field's name; nothing is clamped. */
class AxWorkerBuilderTest {

    private static AxWorkerBuilder valid() {
        return AxWorker.builder()
                .server("http://ax:7070")
                .token("t")
                .group("orders")
                .handler("h", ctx -> null);
    }

    @Test
    void a_complete_builder_builds_a_worker_with_its_defaults() {
        try (AxWorker worker = valid().build()) {
            assertThat(worker.groups()).containsExactly("orders");
            assertThat(worker.handlerNames()).containsExactly("h");
            assertThat(worker.executorId())
                    .endsWith("-" + ProcessHandle.current().pid());
            assertThat(worker.isRunning()).isFalse();
        }
    }

    @Test
    void names_the_field_of_each_missing_or_bad_value() {
        assertThatThrownBy(() -> valid().server((String) null).build()).hasMessageStartingWith("server is required");
        assertThatThrownBy(() -> valid().server("ftp://ax").build())
                .hasMessageStartingWith("server must be an http or https URL");
        assertThatThrownBy(() -> valid().token(" ").build()).hasMessageStartingWith("token is required");
        assertThatThrownBy(() -> AxWorker.builder()
                        .server("http://ax")
                        .token("t")
                        .handler("h", ctx -> null)
                        .build())
                .hasMessageStartingWith("groups must name at least one executor group");
        assertThatThrownBy(() -> AxWorker.builder()
                        .server("http://ax")
                        .token("t")
                        .group("g")
                        .build())
                .hasMessage("handlers: register at least one handler");
        assertThatThrownBy(() -> valid().handler("h", ctx -> 1).build())
                .hasMessage("handlers: more than one handler named [h]");
        assertThatThrownBy(() -> valid().handler(" ", ctx -> 1).build())
                .hasMessage("handlers: a handler name must not be blank");
        assertThatThrownBy(() -> valid().concurrency(0).build()).hasMessage("concurrency must be at least 1, was 0");
        assertThatThrownBy(() -> valid().pollWait(Duration.ofSeconds(-1)).build())
                .hasMessageStartingWith("pollWait must be");
        assertThatThrownBy(() -> valid().shutdownGrace(null).build()).hasMessageStartingWith("shutdownGrace must be");
    }

    @Test
    void run_once_without_a_store_says_how_to_configure_one() {
        RunContext ctx = new RunContext(FakeChannel.item(1, "h"), null, () -> false, null, null, "w");
        assertThatThrownBy(() -> ctx.runOnce(tx -> "x"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("idempotencyStore(new IdempotencyStore(dataSource))");
    }
}
