package dev.ax.scheduler;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.time.SystemClock;
import dev.ax.store.DatabaseClock;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** Builders for scheduler tests: nodes on a real database, task JSON, and a fast fake executor. */
final class TestNodes {
    private TestNodes() {}

    static SchedulerNode node(Store store, String id, Duration skew, SchedulerConfig config) {
        DatabaseClock clock = new DatabaseClock(store.db(), new SystemClock(skew), Duration.ofSeconds(5));
        return new SchedulerNode(id, store, clock, config);
    }

    static SchedulerNode node(Store store, String id) {
        return node(store, id, Duration.ZERO, SchedulerConfig.DEFAULT);
    }

    /** A node whose secrets are sealed with {@code keyring}. */
    static SchedulerNode node(Store store, String id, Keyring keyring) {
        DatabaseClock clock = new DatabaseClock(store.db(), new SystemClock(Duration.ZERO), Duration.ofSeconds(5));
        return new SchedulerNode(id, store, clock, SchedulerConfig.DEFAULT, WebhookSender.NONE, keyring);
    }

    static Map<String, Object> task(
            String name, Map<String, Object> trigger, String command, Map<String, Object> policy) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("taskName", name);
        json.put("trigger", trigger);
        json.put("action", Map.of("type", "shell", "command", command));
        if (policy != null) {
            json.put("policy", policy);
        }
        return json;
    }

    static Map<String, Object> cron(String expression) {
        return Map.of("type", "cron", "expression", expression, "timezone", "UTC");
    }

    static Map<String, Object> event() {
        return Map.of("type", "event");
    }

    /**
     * An executor that claims through the dispatcher and reports success at once: the
     * "finishes in milliseconds" job of the duplicate-run incident.
     */
    static final class FastExecutor implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicLong completed = new AtomicLong();
        private final AtomicLong errors = new AtomicLong();
        private final Thread thread;

        FastExecutor(Dispatcher dispatcher, String id) {
            dispatcher.register(
                    new Register(id, UUID.randomUUID().toString(), List.of("default"), "test", 1, "test", List.of()));
            thread = Thread.ofPlatform().daemon(true).name("fast-" + id).start(() -> {
                while (running.get()) {
                    try {
                        for (WorkItem item : dispatcher.poll(new Poll(id, List.of("default"), 50, 200))) {
                            if (dispatcher
                                    .complete(new Completion(id, item.ref(), true, null, 0, "ok"))
                                    .accepted()) {
                                completed.incrementAndGet();
                            }
                        }
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException e) {
                        errors.incrementAndGet();
                    }
                }
            });
        }

        long completed() {
            return completed.get();
        }

        long errors() {
            return errors.get();
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.interrupt();
            thread.join(5000);
        }
    }
}
