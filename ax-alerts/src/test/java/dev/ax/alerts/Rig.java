package dev.ax.alerts;

import com.sun.net.httpserver.HttpServer;
import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.time.SystemClock;
import dev.ax.scheduler.Keyring;
import dev.ax.scheduler.MasterKey;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.scheduler.SchedulerNode;
import dev.ax.scheduler.WebhookSender;
import dev.ax.store.DatabaseClock;
import dev.ax.store.DbConfig;
import dev.ax.store.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A scheduler node on a real database with its loops not started (the test drives every step), an
 * {@link Alerts} with its ticks called by hand, a fake executor speaking the dispatcher protocol,
 * a secret key in memory, and a real HTTP server as the alert channel "hook".
 */
final class Rig implements AutoCloseable {
    final Store store;
    final SchedulerNode node;
    final Alerts alerts;
    final HttpServer http;
    final List<String> received = new CopyOnWriteArrayList<>();
    /** The status the hook answers with; tests make the channel fail with 500. */
    final AtomicInteger status = new AtomicInteger(200);

    private boolean registered;
    private final Map<Long, WorkItem> claimed = new HashMap<>();

    Rig(DbConfig db, Function<String, AlertsConfig> config) {
        try {
            http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        http.createContext("/hook", exchange -> {
            received.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            exchange.sendResponseHeaders(status.get(), -1);
            exchange.close();
        });
        http.start();
        store = Store.open(db);
        AlertsConfig cfg = config.apply("http://127.0.0.1:" + http.getAddress().getPort() + "/hook");
        node = new SchedulerNode(
                "alerts-test",
                store,
                new DatabaseClock(store.db(), SystemClock.UTC, Duration.ofSeconds(5)),
                SchedulerConfig.DEFAULT.withChannels(cfg.channels().keySet()),
                WebhookSender.NONE,
                Keyring.inMemory(MasterKey.random()));
        node.secrets().start();
        alerts = Alerts.create(node, cfg);
    }

    /** Alerts to the hook, short retries, everything else default. */
    static AlertsConfig hookConfig(String url) {
        return new AlertsConfig(
                Map.of("hook", new ChannelConfig.Webhook(url, Map.of())),
                "http://console.test",
                null,
                AlertsConfig.DEFAULT_STORM_LIMIT,
                AlertsConfig.Pipeline.DEFAULT.withFirstRetry(Duration.ofMillis(1)),
                null,
                null,
                null);
    }

    void task(String name, Map<String, Object> trigger, Map<String, Object> policy) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("taskName", name);
        json.put("trigger", trigger);
        json.put("action", Map.of("type", "shell", "command", "true"));
        json.put("policy", policy);
        node.tasks().create(json, "test");
    }

    long trigger(String name) {
        return node.tasks().trigger(name, Map.of(), Cause.MANUAL, "alice");
    }

    /** Claims the run's next attempt, writes its output, and reports how it ended. */
    void finish(long instanceId, boolean success, String... output) {
        if (!registered) {
            node.dispatcher()
                    .register(new Register(
                            "fake", UUID.randomUUID().toString(), List.of("default"), "test", 1, "test", List.of()));
            registered = true;
        }
        if (!claimed.containsKey(instanceId)) {
            try {
                node.dispatcher()
                        .poll(new Poll("fake", List.of("default"), 50, 0))
                        .forEach(w -> claimed.put(w.instanceId(), w));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
        WorkItem item = claimed.remove(instanceId);
        if (item == null) {
            throw new AssertionError("run " + instanceId + " was not claimable");
        }
        if (output.length > 0) {
            node.dispatcher().log(new LogChunk("fake", item.ref(), "stdout", List.of(output)));
        }
        var answer = node.dispatcher()
                .complete(new Completion(
                        "fake",
                        item.ref(),
                        success,
                        success ? null : FailureKind.EXIT_CODE,
                        success ? 0 : 3,
                        success ? "ok" : null));
        if (!answer.accepted()) {
            throw new AssertionError("completion refused: " + answer.reason());
        }
    }

    /** Tails and delivers until nothing is left to do (a few rounds at most). */
    void pump() {
        for (int i = 0; i < 5; i++) {
            alerts.tailTick();
            alerts.deliverTick();
        }
    }

    List<Alerts.AlertView> alertsOf(String kind) {
        return alerts.recent(100).stream().filter(a -> a.kind().equals(kind)).toList();
    }

    @Override
    public void close() {
        alerts.close();
        node.close();
        store.close();
        http.stop(0);
    }
}
