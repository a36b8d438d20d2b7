package dev.ax.api;

import dev.ax.domain.time.SystemClock;
import dev.ax.scheduler.Keyring;
import dev.ax.scheduler.MasterKey;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.scheduler.SchedulerNode;
import dev.ax.scheduler.WebhookSender;
import dev.ax.store.DatabaseClock;
import dev.ax.store.DbConfig;
import dev.ax.store.Store;
import java.net.URI;

/** A scheduler node with its API on a free port, one token per role, and a secret key in memory. No executor. */
final class TestNode implements AutoCloseable {
    static final String ADMIN = "admin-token";
    static final String OPERATOR = "operator-token";
    static final String VIEWER = "viewer-token";
    static final String EXECUTOR = "executor-token";
    private static final MasterKey KEY = MasterKey.random();

    final Store store;
    final SchedulerNode node;
    final ApiServer api;

    TestNode(DbConfig db) {
        this(db, "api-test", SchedulerConfig.DEFAULT, HttpOptions.DEFAULT);
    }

    TestNode(DbConfig db, HttpOptions http) {
        this(db, "api-test", SchedulerConfig.DEFAULT, http);
    }

    /** A node with its own settings; the first node on {@code db} adds the tokens, a node joining it finds them. */
    TestNode(DbConfig db, String nodeId, SchedulerConfig config) {
        this(db, nodeId, config, HttpOptions.DEFAULT);
    }

    TestNode(DbConfig db, String nodeId, SchedulerConfig config, HttpOptions http) {
        store = Store.open(db);
        store.tx(tx -> {
            if (store.tokens().count(tx) == 0) {
                store.tokens().add(tx, "admin", ADMIN, "admin", "test");
                store.tokens().add(tx, "olga", OPERATOR, "operator", "test");
                store.tokens().add(tx, "vera", VIEWER, "viewer", "test");
                store.tokens().add(tx, "exec-1", EXECUTOR, "executor", "test");
            }
            return null;
        });
        DatabaseClock clock = new DatabaseClock(store.db(), SystemClock.UTC, DatabaseClock.DEFAULT_RESYNC);
        // One key for every node of the test JVM: nodes sharing a database must share it, as a cluster's do.
        node = new SchedulerNode(nodeId, store, clock, config, WebhookSender.NONE, Keyring.inMemory(KEY)).start();
        api = ApiServer.start(node, "127.0.0.1", 0, http, Observability.NONE, cfg -> {});
    }

    ApiClient client(String token) {
        return new ApiClient(URI.create("http://127.0.0.1:" + api.port()), token);
    }

    @Override
    public void close() {
        api.close();
        node.close();
        store.close();
    }
}
