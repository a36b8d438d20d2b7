package dev.ax.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LoopRunnerTest {
    /** A pause between ticks that only close() ends (it interrupts a loop waiting between ticks). */
    static void pauseUntilInterrupted() throws InterruptedException {
        new CountDownLatch(1).await();
    }

    @Test
    void a_failing_tick_is_counted_and_the_loop_goes_on() {
        AtomicInteger calls = new AtomicInteger();
        try (LoopRunner loop = new LoopRunner(
                        "failing",
                        () -> {
                            if (calls.incrementAndGet() == 1) {
                                throw new IllegalStateException("first tick fails");
                            }
                        },
                        () -> {})
                .start()) { // no pause between ticks
            await().atMost(Duration.ofSeconds(5)).until(() -> loop.ticks() >= 3);
            assertThat(loop.errors()).isEqualTo(1);
            assertThat(loop.lastError()).hasMessage("first tick fails");
        }
    }

    @Test
    void close_lets_a_running_tick_finish_uninterrupted() throws InterruptedException {
        CountDownLatch inTick = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        LoopRunner loop = new LoopRunner(
                        "busy",
                        () -> {
                            inTick.countDown();
                            // Stands for a database call: an interrupt here would close the connection under it.
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                interrupted.set(true);
                            }
                        },
                        LoopRunnerTest::pauseUntilInterrupted)
                .start();
        assertThat(inTick.await(5, TimeUnit.SECONDS)).isTrue();
        Thread closer = Thread.ofPlatform().start(loop::close);
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(closer::isAlive);
        release.countDown();
        closer.join(5_000);
        assertThat(closer.isAlive()).isFalse();
        assertThat(interrupted).isFalse();
        assertThat(loop.errors()).isZero();
        assertThat(loop.ticks()).isEqualTo(1);
    }

    @Test
    void close_wakes_a_loop_waiting_between_ticks() throws InterruptedException {
        LoopRunner loop = new LoopRunner("idle", () -> {}, LoopRunnerTest::pauseUntilInterrupted).start();
        await().atMost(Duration.ofSeconds(5)).until(() -> loop.ticks() == 1);
        Thread closer = Thread.ofPlatform().start(loop::close);
        closer.join(3_000);
        assertThat(closer.isAlive())
                .as("close returned without waiting for the endless pause")
                .isFalse();
        assertThat(loop.errors()).isZero();
    }
}
