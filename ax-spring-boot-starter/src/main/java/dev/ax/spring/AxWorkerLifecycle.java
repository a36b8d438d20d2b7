package dev.ax.spring;

import dev.ax.sdk.AxHandler;
import dev.ax.sdk.AxWorker;
import dev.ax.sdk.AxWorkerBuilder;
import dev.ax.sdk.IdempotencyStore;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the AX worker when the application context has started (every bean, and so every
 * {@link AxJob} method, exists by then) and closes it when the context stops: in the last phase, so it
 * starts after everything else and stops first, and running handlers finish while their DataSource is
 * still open. An application without {@link AxJob} methods runs no worker.
 */
public class AxWorkerLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(AxWorkerLifecycle.class);

    private final AxProperties properties;
    private final AxJobRegistry jobs;
    private final IdempotencyStore idempotencyStore; // may be null: no DataSource
    private volatile AxWorker worker;

    public AxWorkerLifecycle(AxProperties properties, AxJobRegistry jobs, IdempotencyStore idempotencyStore) {
        this.properties = properties;
        this.jobs = jobs;
        this.idempotencyStore = idempotencyStore;
    }

    @Override
    public synchronized void start() {
        if (worker != null) {
            return;
        }
        Map<String, AxHandler> handlers = jobs.handlers();
        if (handlers.isEmpty()) {
            log.info("no @AxJob methods in this application: no AX worker started");
            return;
        }
        worker = builder(handlers).build().start();
    }

    @Override
    public synchronized void stop() {
        if (worker != null) {
            worker.close();
            worker = null;
        }
    }

    @Override
    public boolean isRunning() {
        return worker != null;
    }

    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE;
    }

    /** The running worker, or null before start, after stop, or without handlers. */
    public AxWorker worker() {
        return worker;
    }

    private AxWorkerBuilder builder(Map<String, AxHandler> handlers) {
        if (properties.getServerUrl() == null) {
            throw new IllegalStateException("ax.server-url is required to run the @AxJob handlers " + handlers.keySet()
                    + " (or set ax.enabled=false)");
        }
        if (properties.getToken() == null || properties.getToken().isBlank()) {
            throw new IllegalStateException("ax.token is required: an AX token with role executor");
        }
        if (properties.getGroup() == null || properties.getGroup().isEmpty()) {
            throw new IllegalStateException("ax.group is required: the executor group of this application's tasks");
        }
        return AxWorker.builder()
                .server(properties.getServerUrl())
                .token(properties.getToken())
                .groups(properties.getGroup())
                .handlers(handlers)
                .concurrency(properties.getConcurrency())
                .executorId(properties.getExecutorId())
                .pollWait(properties.getPollWait())
                .shutdownGrace(properties.getShutdownGrace())
                .failFast(properties.isFailFast())
                .idempotencyStore(idempotencyStore);
    }
}
