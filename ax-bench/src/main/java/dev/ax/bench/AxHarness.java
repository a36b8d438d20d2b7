package dev.ax.bench;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.time.SystemClock;
import dev.ax.scheduler.Dispatcher;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.scheduler.SchedulerNode;
import dev.ax.store.DatabaseClock;
import dev.ax.store.DbConfig;
import dev.ax.store.Store;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * One AX scheduler node on a fresh PostgreSQL database, driven the way the in-process executor
 * drives it (register, poll, complete through the {@link Dispatcher}) but with a no-op body: each
 * claimed run is reported successful at once, from its own thread as the executor's run threads
 * do. Every run still takes AX's full path: run created, claimed under a lease, completed,
 * every transition written with its event.
 */
final class AxHarness implements AutoCloseable {
    static final String GROUP = "default";

    final Store store;
    final SchedulerNode node;
    private final List<NoopConsumer> consumers = new ArrayList<>();
    /** Per run handed to a consumer: its run id (the log's task column), its slot and when its body began. */
    private final RunLog deliveries = new RunLog();

    private AxHarness(Store store, SchedulerNode node) {
        this.store = store;
        this.node = node;
    }

    /** A node on {@code database} (dropped and created again); loops not started yet. */
    static AxHarness open(BenchDb db, String database, int poolSize) {
        return open(db, database, poolSize, SchedulerConfig.DEFAULT, true);
    }

    /**
     * A node on {@code database} with {@code config}; loops not started yet.
     *
     * @param recreate drop and create the database first; false to open one as a previous step left it (a history
     *                 loaded in bulk, say)
     */
    static AxHarness open(BenchDb db, String database, int poolSize, SchedulerConfig config, boolean recreate) {
        Main.quietLogs();
        if (recreate) {
            db.recreate(database);
        }
        if (Boolean.getBoolean("ax.bench.logStatements") && db instanceof Pg pg) {
            // Diagnostics only (-Dax.bench.logStatements=true): every statement AX sends goes to the server log.
            try (Connection c = pg.connect("postgres");
                    Statement st = c.createStatement()) {
                st.execute("ALTER DATABASE " + database + " SET log_statement = 'all'");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
        Store store = Store.open(new DbConfig(db.url(database), db.user(), db.password(), poolSize));
        DatabaseClock clock =
                new DatabaseClock(store.db(), new SystemClock(Duration.ZERO), DatabaseClock.DEFAULT_RESYNC);
        SchedulerNode node = new SchedulerNode("bench-node", store, clock, config);
        return new AxHarness(store, node);
    }

    /** Creates tasks through {@code Tasks.create} (the API's path), from a few threads. */
    void createTasks(int count, IntFunction<Map<String, Object>> json, int threads) {
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                done.add(pool.submit(() -> {
                    for (int i = first; i < count; i += threads) {
                        node.tasks().create(json.apply(i), "bench");
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } catch (Exception e) {
            throw new IllegalStateException("creating tasks: " + e, e);
        }
    }

    static Map<String, Object> task(String name, Map<String, Object> trigger, String overflow) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("taskName", name);
        json.put("trigger", trigger);
        json.put("action", Map.of("type", "shell", "command", "true"));
        if (overflow != null) {
            json.put("policy", Map.of("overflow", overflow));
        }
        return json;
    }

    AxHarness start() {
        node.start();
        return this;
    }

    /** Starts {@code n} consumer threads, each polling for up to {@code batch} runs at a time. */
    void startConsumers(int n, int batch) {
        for (int i = 0; i < n; i++) {
            consumers.add(new NoopConsumer(node.dispatcher(), "bench-consumer-" + i, batch, deliveries));
        }
    }

    /**
     * Every run the consumers were handed, with when its body began (this JVM's clock, epoch ms): the moment the anchors'
     * job bodies note as their start. A run handed out twice shows twice. Complete once {@link #stopConsumers()} returned.
     */
    RunLog.Runs deliveries() {
        return deliveries.snapshot();
    }

    long completed() {
        return consumers.stream().mapToLong(c -> c.completed.get()).sum();
    }

    long consumerErrors() {
        return consumers.stream().mapToLong(c -> c.errors.get()).sum();
    }

    void stopConsumers() {
        consumers.forEach(NoopConsumer::stop);
        consumers.forEach(NoopConsumer::join);
    }

    @Override
    public void close() {
        stopConsumers();
        // A tick interrupted mid-statement at shutdown logs a connection error; that is not a finding. The loggers
        // stay quiet until the next node opens (a loop thread may log after close() returned).
        Main.quiet("dev.ax.scheduler.LoopRunner", "com.zaxxer.hikari", "dev.ax.scheduler");
        node.close();
        store.close();
    }

    /** An executor with a no-op body: claims runs through the dispatcher and reports each successful at once. */
    static final class NoopConsumer {
        private final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong completed = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        private final Thread thread;

        NoopConsumer(Dispatcher dispatcher, String id, int batch, RunLog deliveries) {
            dispatcher.register(new Register(
                    id,
                    UUID.randomUUID().toString(),
                    List.of(GROUP),
                    "bench",
                    ProcessHandle.current().pid(),
                    "bench",
                    List.of()));
            thread = Thread.ofPlatform().daemon(true).name(id).start(() -> {
                while (running.get()) {
                    try {
                        List<WorkItem> items = dispatcher.poll(new Poll(id, List.of(GROUP), batch, 200));
                        long bodyStart = System.currentTimeMillis();
                        deliveries.addAll(
                                items,
                                WorkItem::instanceId,
                                item -> item.scheduledAt().toEpochMilli(),
                                bodyStart);
                        // Like the executor's run threads: each run reports its end on its own, at once; the next poll
                        // waits for them (a consumer holds at most one batch). Not interruptible: stop() must not cut a
                        // report off in the middle of its statement (its connection would be broken, and logged).
                        CountDownLatch reported = new CountDownLatch(items.size());
                        for (WorkItem item : items) {
                            Thread.ofVirtual().start(() -> {
                                try {
                                    report(dispatcher, id, item);
                                } finally {
                                    reported.countDown();
                                }
                            });
                        }
                        awaitUninterruptibly(reported);
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException e) {
                        if (running.get()) {
                            errors.incrementAndGet();
                        }
                    }
                }
            });
        }

        private void report(Dispatcher dispatcher, String id, WorkItem item) {
            try {
                if (dispatcher
                        .complete(new Completion(id, item.ref(), true, null, 0, null))
                        .accepted()) {
                    completed.incrementAndGet();
                } else {
                    errors.incrementAndGet();
                }
            } catch (RuntimeException e) {
                if (running.get()) {
                    errors.incrementAndGet();
                }
            }
        }

        private static void awaitUninterruptibly(CountDownLatch latch) {
            boolean interrupted = false;
            while (true) {
                try {
                    latch.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt(); // the loop ends at its next poll
            }
        }

        void stop() {
            running.set(false);
            thread.interrupt();
        }

        void join() {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
