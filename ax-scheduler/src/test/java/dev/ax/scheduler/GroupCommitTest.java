package dev.ax.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class GroupCommitTest {
    private final List<List<Integer>> batches = new CopyOnWriteArrayList<>();

    private Function<List<Integer>, List<String>> recording(CountDownLatch gate) {
        return items -> {
            batches.add(List.copyOf(items));
            try {
                gate.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return items.stream().map(i -> "done " + i).toList();
        };
    }

    @Test
    void an_item_alone_is_written_at_once_by_its_own_caller() {
        CountDownLatch open = new CountDownLatch(0);
        GroupCommit<Integer, String> commits = new GroupCommit<>(recording(open), 1, 10);
        assertThat(commits.submit(7)).isEqualTo("done 7");
        assertThat(batches).containsExactly(List.of(7));
    }

    @Test
    void items_arriving_while_a_batch_is_written_go_together_in_the_next_and_each_gets_its_own_answer()
            throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        GroupCommit<Integer, String> commits = new GroupCommit<>(recording(release), 1, 100);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> first = pool.submit(() -> commits.submit(0));
            await().atMost(Duration.ofSeconds(5)).until(() -> batches.size() == 1);
            List<Future<String>> rest = new ArrayList<>();
            for (int i = 1; i <= 20; i++) {
                int item = i;
                rest.add(pool.submit(() -> commits.submit(item)));
            }
            // All twenty wait behind the one writer allowed, then go as one batch.
            await().atMost(Duration.ofSeconds(5)).until(() -> commits.queued() == 20);
            release.countDown();
            assertThat(first.get()).isEqualTo("done 0");
            for (int i = 1; i <= 20; i++) {
                assertThat(rest.get(i - 1).get()).isEqualTo("done " + i);
            }
        }
        assertThat(batches).hasSize(2);
        assertThat(batches.get(1)).hasSize(20);
    }

    @Test
    void batches_never_exceed_the_maximum_nor_the_writers_at_once() throws Exception {
        AtomicInteger writing = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        GroupCommit<Integer, Integer> commits = new GroupCommit<>(
                items -> {
                    mostAtOnce.accumulateAndGet(writing.incrementAndGet(), Math::max);
                    batches.add(List.copyOf(items));
                    Thread.onSpinWait();
                    writing.decrementAndGet();
                    return items.stream().map(i -> i * 2).toList();
                },
                2,
                8);
        try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
            List<Future<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                int item = i;
                answers.add(pool.submit(() -> commits.submit(item)));
            }
            for (int i = 0; i < answers.size(); i++) {
                assertThat(answers.get(i).get()).isEqualTo(i * 2);
            }
        }
        assertThat(batches).allSatisfy(b -> assertThat(b).hasSizeBetween(1, 8));
        assertThat(batches.stream().mapToInt(List::size).sum()).isEqualTo(2_000);
        assertThat(mostAtOnce.get()).isBetween(1, 2);
    }

    @Test
    void a_failed_batch_fails_every_item_in_it_and_the_next_batch_is_written() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        GroupCommit<Integer, String> commits = new GroupCommit<>(
                items -> {
                    if (calls.incrementAndGet() == 1) {
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                        throw new IllegalStateException("deadlock detected");
                    }
                    return items.stream().map(i -> "ok " + i).toList();
                },
                1,
                100);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> doomed = pool.submit(() -> commits.submit(1));
            await().atMost(Duration.ofSeconds(5)).until(() -> calls.get() == 1);
            Future<String> next = pool.submit(() -> commits.submit(2));
            await().atMost(Duration.ofSeconds(5)).until(() -> commits.queued() == 1);
            release.countDown();
            assertThatThrownBy(doomed::get).hasRootCauseMessage("deadlock detected");
            assertThat(next.get()).isEqualTo("ok 2");
        }
    }
}
