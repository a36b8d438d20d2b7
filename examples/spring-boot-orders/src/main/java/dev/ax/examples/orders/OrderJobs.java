package dev.ax.examples.orders;

import dev.ax.sdk.AxContext;
import dev.ax.spring.AxJob;
import java.sql.Timestamp;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The service's AX jobs. A task refers to one by name:
 * {@code {"action":{"type":"sdk","handler":"syncOrders","group":"orders"}}}.
 */
@Component
public class OrderJobs {

    private final JdbcTemplate jdbc;

    public OrderJobs(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Pulls the orders of one schedule slot into the service's database, exactly once: the row and the
     * run's request id commit in one transaction (the JdbcTemplate joins the one {@code runOnce} opened), so
     * when AX re-delivers a run whose report got lost, the order is not inserted twice.
     */
    @AxJob("syncOrders")
    public String syncOrders(AxContext ctx) throws Exception {
        ctx.log("syncing orders for " + ctx.scheduledAt() + " (attempt " + ctx.attempt() + ")");
        String result = ctx.runOnce(tx -> {
            jdbc.update(
                    "INSERT INTO orders (request_id, slot, source) VALUES (?, ?, ?)",
                    ctx.requestId(),
                    ctx.scheduledAt() == null ? null : Timestamp.from(ctx.scheduledAt()),
                    ctx.param("source") == null ? "shop" : ctx.param("source"));
            return "order synced for " + ctx.requestId();
        });
        ctx.progress(100, result);
        return result;
    }
}
