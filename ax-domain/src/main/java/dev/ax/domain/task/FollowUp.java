package dev.ax.domain.task;

import java.util.List;
import java.util.Map;

/**
 * What happens after a run has failed for good ({@code policy.onFailedActions}):
 * the system reacts, then tells people. Each follow-up is recorded as an event of the failed
 * run, and a compensation run's trigger chain points back to it.
 */
public sealed interface FollowUp {
    String type();

    /**
     * Runs another task (a compensation), with parameters rendered from the failed run
     * ({@code {{date}}}, {{instanceId}}, {{params.x}}, …).
     */
    record TriggerTask(String taskName, Map<String, String> params) implements FollowUp {
        public TriggerTask {
            params = params == null ? Map.of() : Map.copyOf(params);
        }

        @Override
        public String type() {
            return "trigger";
        }
    }

    /** Pauses tasks, typically the downstream ones that would read bad data. */
    record PauseTasks(List<String> tasks) implements FollowUp {
        public PauseTasks {
            tasks = List.copyOf(tasks);
        }

        @Override
        public String type() {
            return "pause";
        }
    }

    /** POSTs a JSON description of the failure to a URL (retried until it answers 2xx, a few times). */
    record Webhook(String url, Map<String, String> headers) implements FollowUp {
        public Webhook {
            headers = headers == null ? Map.of() : Map.copyOf(headers);
        }

        @Override
        public String type() {
            return "webhook";
        }
    }
}
