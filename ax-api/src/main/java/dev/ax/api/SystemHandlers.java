package dev.ax.api;

import dev.ax.api.Views.CronNext;
import dev.ax.api.Views.ExecutorView;
import dev.ax.api.Views.Page;
import dev.ax.domain.schedule.CronPreview;
import dev.ax.domain.schedule.CronSchedule;
import dev.ax.domain.task.ValidationException;
import dev.ax.domain.time.AxClock;
import dev.ax.scheduler.ConflictException;
import dev.ax.store.DatabaseClock;
import dev.ax.store.ExecutorRow;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Health, metrics, the cron preview, executors, and the OpenAPI document. */
final class SystemHandlers {
    static final String OPENAPI_RESOURCE = "/dev/ax/api/openapi.json";
    private static final int DEFAULT_CRON_COUNT = 5;

    private final ApiContext api;
    private volatile byte[] openApi;

    SystemHandlers(ApiContext api) {
        this.api = api;
    }

    /**
     * 200 when the database answers and no watchdog check fails, 503 otherwise, so an external
     * prober can use it. {@code nodeTime} is this node's own clock and {@code clockOffsetMillis}
     * how far the database clock is ahead of it: a large offset is harmless for firing
     * (invariant 2) but worth seeing. The rest comes from the node's monitoring
     * ({@link Observability}): backlog, running, executors, loop age, failing checks, channels.
     */
    void health(Context ctx) {
        AxClock clock = api.node().context().clock();
        Instant nodeView = clock.now();
        Duration offset = clock instanceof DatabaseClock dc ? dc.offset() : null;
        Instant nodeTime = offset == null ? nodeView : nodeView.minus(offset);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", "ok");
        body.put("nodeId", api.nodeId());
        body.put("nodeTime", nodeTime.toString());
        String error = null;
        try {
            Instant dbTime = api.store().tx(Tx::now);
            body.put("dbTime", dbTime.toString());
            body.put(
                    "clockOffsetMillis",
                    offset != null
                            ? offset.toMillis()
                            : Duration.between(nodeTime, dbTime).toMillis());
        } catch (RuntimeException e) {
            body.put("dbTime", null);
            body.put("clockOffsetMillis", null);
            error = "database unreachable: " + e.getMessage();
        }
        body.put("loopErrors", api.node().loopErrors());
        Observability.Report report = api.observability().health();
        body.putAll(report.facts());
        body.put("failing", report.failing());
        body.put("degraded", report.degraded());
        body.put("channels", report.channels());
        boolean healthy = error == null && report.failing().isEmpty();
        // A draining node answers 503 so that a load balancer stops sending it requests while it finishes its runs.
        boolean draining = api.node().draining();
        body.put("status", draining ? "draining" : !healthy ? "unhealthy" : report.status());
        if (error != null) {
            body.put("error", error);
        }
        ctx.status(healthy && !draining ? 200 : 503).json(body);
    }

    /** Prometheus text exposition of this node's metrics (fires, fire lag, outcomes, queue, executors, alerts, pool). */
    void metrics(Context ctx) {
        String text = api.observability().scrape();
        if (text == null) {
            throw new ApiException(404, "this node keeps no metrics");
        }
        ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(text);
    }

    /** {@code ?expression=&timezone=UTC&after=<db now>&count=5}: the next slots, as the scheduler will fire them. */
    void cronNext(Context ctx) {
        String expression = Params.string(ctx, "expression");
        if (expression == null) {
            throw new ValidationException("expression", "required, e.g. '0 2 * * *'");
        }
        String tz = Params.string(ctx, "timezone");
        ZoneId zone;
        try {
            zone = tz == null ? ZoneId.of("UTC") : ZoneId.of(tz);
        } catch (DateTimeException e) {
            throw new ValidationException(
                    "timezone", "unknown time zone '" + tz + "'; use a region like Asia/Shanghai");
        }
        int count = Params.intIn(ctx, "count", DEFAULT_CRON_COUNT, 1, CronPreview.MAX_COUNT);
        Instant given = Params.instant(ctx, "after");
        CronSchedule schedule;
        try {
            schedule = CronSchedule.parse(expression, zone);
        } catch (IllegalArgumentException e) {
            throw new ValidationException("expression", e.getMessage());
        }
        Instant after = given != null ? given : api.store().tx(Tx::now);
        ctx.json(new CronNext(CronPreview.preview(schedule, after, count)));
    }

    void executors(Context ctx) {
        Store store = api.store();
        long alive = api.executorAliveMillis();
        List<ExecutorView> items = store.tx(tx -> {
            Instant cutoff = tx.now().minusMillis(alive);
            List<ExecutorRow> all = store.executors().all(tx);
            Map<String, List<String>> labels = store.executors().allLabels(tx);
            return all.stream()
                    .map(e -> ExecutorView.of(
                            e,
                            e.lastSeenAt() != null && !e.lastSeenAt().isBefore(cutoff),
                            labels.getOrDefault(e.id(), List.of())))
                    .toList();
        });
        ctx.json(Page.of(items));
    }

    void openApi(Context ctx) {
        ctx.contentType("application/json").result(openApiDocument());
    }

    /**
     * An online backup of the embedded database, as a zip: written to a temporary file by the
     * database itself (consistent while the node goes on), sent, deleted. 409 on PostgreSQL,
     * which is backed up with pg_dump.
     */
    void backup(Context ctx) throws IOException {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("ax-backup-", ".zip");
        try {
            java.nio.file.Files.delete(file); // BACKUP TO writes the file itself
            try {
                api.store().db().backupTo(file);
            } catch (UnsupportedOperationException e) {
                throw new ConflictException(e.getMessage());
            }
            ctx.contentType("application/zip");
            ctx.header("Content-Disposition", "attachment; filename=\"ax-backup.zip\"");
            ctx.result(java.nio.file.Files.readAllBytes(file));
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    static byte[] readOpenApi() {
        try (InputStream in = SystemHandlers.class.getResourceAsStream(OPENAPI_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(OPENAPI_RESOURCE + " is missing from the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private byte[] openApiDocument() {
        byte[] doc = openApi;
        if (doc == null) {
            doc = readOpenApi();
            openApi = doc;
        }
        return doc;
    }
}
