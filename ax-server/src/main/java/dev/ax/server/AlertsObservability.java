package dev.ax.server;

import dev.ax.alerts.Alerts;
import dev.ax.api.Observability;

/** Puts the alerts module behind the API's /healthz and /metrics, so the API module needs no mail or chat clients. */
final class AlertsObservability implements Observability {
    private final Alerts alerts;

    AlertsObservability(Alerts alerts) {
        this.alerts = alerts;
    }

    @Override
    public Report health() {
        Alerts.Health h = alerts.health();
        return new Report(h.status(), h.facts(), h.failing(), h.degraded(), h.channels());
    }

    @Override
    public String scrape() {
        return alerts.scrape();
    }
}
