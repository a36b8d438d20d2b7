package dev.ax.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.store.Store;
import dev.ax.store.TestDatabases;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What a node remembers of executors stays bounded by those that still poll it. */
class H2DispatcherMemoryTest {
    @Test
    void executors_that_stopped_polling_are_forgotten_once_they_count_as_offline() throws Exception {
        SchedulerConfig config = new SchedulerConfig(
                SchedulerConfig.DEFAULT_SCAN_WINDOW,
                SchedulerConfig.DEFAULT_FIRE_BATCH,
                SchedulerConfig.DEFAULT_MAX_IDLE_WAIT,
                SchedulerConfig.DEFAULT_LEASE_MILLIS,
                Duration.ofSeconds(2),
                SchedulerConfig.DEFAULT_HOUSEKEEPING,
                SchedulerConfig.DEFAULT_POLL_RECHECK,
                Set.of());
        try (Store store = Store.open(TestDatabases.h2());
                SchedulerNode node = TestNodes.node(store, "n1", Duration.ZERO, config)) {
            Dispatcher dispatcher = node.dispatcher();
            AtomicLong nanos = new AtomicLong();
            dispatcher.useTicker(nanos::get);
            for (int i = 0; i < 5; i++) {
                poll(dispatcher, "pod-" + i);
            }
            assertThat(dispatcher.remembered()).isEqualTo(5);

            nanos.addAndGet(Duration.ofMillis(2_100).toNanos()); // past executorAlive (2 s)
            poll(dispatcher, "pod-5");
            assertThat(dispatcher.remembered())
                    .as("only the executor that still polls")
                    .isEqualTo(1);

            poll(dispatcher, "pod-0");
            assertThat(dispatcher.remembered())
                    .as("one that comes back is read again")
                    .isEqualTo(2);
        }
    }

    private static void poll(Dispatcher dispatcher, String executor) throws InterruptedException {
        dispatcher.register(new Register(executor, executor + "-s1", List.of("default"), "test", 1, "t", List.of()));
        assertThat(dispatcher.poll(new Poll(executor, List.of("default"), 1, 0)))
                .isEmpty();
    }
}
