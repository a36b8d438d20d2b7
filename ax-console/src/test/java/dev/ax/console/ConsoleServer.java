package dev.ax.console;

import dev.ax.api.ApiServer;
import dev.ax.domain.time.SystemClock;
import dev.ax.executor.ExecutorAgent;
import dev.ax.executor.ExecutorConfig;
import dev.ax.executor.HttpExecutorChannel;
import dev.ax.scheduler.Keyring;
import dev.ax.scheduler.MasterKey;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.scheduler.SchedulerNode;
import dev.ax.scheduler.WebhookSender;
import dev.ax.store.DatabaseClock;
import dev.ax.store.DbConfig;
import dev.ax.store.Store;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * A real server node for console tests, wired as {@code AxServer} wires one (scheduler, the
 * API and the console on one port, a secret key in memory, an executor for group "default") — built here because
 * ax-server depends on this module, so its tests cannot be used from here. The executor talks
 * to the node over HTTP, like a remote one.
 */
final class ConsoleServer implements AutoCloseable {
    static final String ADMIN = "admin-token";
    static final String OPERATOR = "operator-token";
    static final String VIEWER = "viewer-token";
    static final String EXECUTOR = "executor-token";

    final Store store;
    final SchedulerNode node;
    final ApiServer http;
    final ExecutorAgent executor;

    ConsoleServer(DbConfig db) {
        this(db, 0, null);
    }

    /** A server on {@code port} (0: any free one) whose console offers single sign-on with {@code sso} (null: none). */
    ConsoleServer(DbConfig db, int port, SsoConfig sso) {
        store = Store.open(db);
        store.tx(tx -> {
            store.tokens().add(tx, "admin", ADMIN, "admin", "test");
            store.tokens().add(tx, "olga", OPERATOR, "operator", "test");
            store.tokens().add(tx, "vera", VIEWER, "viewer", "test");
            store.tokens().add(tx, "exec", EXECUTOR, "executor", "test");
            return null;
        });
        DatabaseClock clock =
                new DatabaseClock(store.db(), new SystemClock(Duration.ZERO), DatabaseClock.DEFAULT_RESYNC);
        node = new SchedulerNode(
                        "console-test-node",
                        store,
                        clock,
                        SchedulerConfig.DEFAULT,
                        WebhookSender.NONE,
                        Keyring.inMemory(MasterKey.random()))
                .start();
        http = ApiServer.start(node, "127.0.0.1", port, Console.routes(node, sso));
        executor = new ExecutorAgent(
                ExecutorConfig.of("console-test-executor", List.of("default")),
                new HttpExecutorChannel(url(), EXECUTOR));
        executor.start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + http.port());
    }

    @Override
    public void close() {
        executor.close();
        http.close();
        node.close();
        store.close();
    }
}
