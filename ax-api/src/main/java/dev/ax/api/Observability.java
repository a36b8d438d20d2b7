package dev.ax.api;

import java.util.Map;

/**
 * What a node's monitoring adds to {@code /healthz} and serves as {@code /metrics}. The server
 * fills it from its alerts module (watchdog checks, channel health, Micrometer); an API started
 * without it answers {@code /healthz} from the database alone and has no metrics. Kept to plain
 * values so the API module needs neither the alerts module nor its mail and chat clients.
 */
public interface Observability {
    /**
     * @param status   {@code ok}, {@code degraded} (an alert channel is failing, or the node's clock is off: still 200)
     *                 or {@code unhealthy} (503)
     * @param facts    backlog, running, live executors, last run created, scheduler loop age...
     * @param failing  failing checks by name, with a reason each
     * @param degraded checks that degrade the node without making it unhealthy (its clock), with a reason each
     * @param channels alert channels by name: type, target, state, last error; never a secret
     */
    record Report(
            String status,
            Map<String, Object> facts,
            Map<String, String> failing,
            Map<String, String> degraded,
            Map<String, Object> channels) {
        public Report {
            facts = facts == null ? Map.of() : facts;
            failing = failing == null ? Map.of() : failing;
            degraded = degraded == null ? Map.of() : degraded;
            channels = channels == null ? Map.of() : channels;
        }
    }

    Report health();

    /** The Prometheus text exposition, or null when this node keeps no metrics. */
    String scrape();

    Observability NONE = new Observability() {
        @Override
        public Report health() {
            return new Report("ok", Map.of(), Map.of(), Map.of(), Map.of());
        }

        @Override
        public String scrape() {
            return null;
        }
    };
}
