package dev.ax.domain.task;

import java.util.Map;

/** What a run does. The server renders templates; executors receive the rendered action. */
public sealed interface Action {
    String DEFAULT_GROUP = "default";

    /** The JSON {@code action.type}. */
    String type();

    /** Executors serve groups; a run goes only to an executor of its task's group. */
    String group();

    /**
     * {@code sh -c command} with templated parameters, extra environment and a working
     * directory (the executor's own when absent).
     */
    record Shell(String command, Map<String, String> env, String workingDir, String group) implements Action {
        public Shell {
            env = env == null ? Map.of() : Map.copyOf(env);
            group = group == null ? DEFAULT_GROUP : group;
        }

        @Override
        public String type() {
            return "shell";
        }
    }

    /**
     * An HTTP request to an internal service. 2xx is success; connection errors, timeouts, 429
     * and 5xx are retryable; other statuses are not (overridable with {@code policy.retryable}).
     *
     * @param body    a template string, or a JSON object/array sent as JSON; {@code null} = none
     * @param async   the service answers 202 and reports later to {@code POST /api/runs/{id}/complete}
     */
    record Http(String method, String url, Map<String, String> headers, Object body, boolean async, String group)
            implements Action {
        public Http {
            headers = headers == null ? Map.of() : Map.copyOf(headers);
            group = group == null ? DEFAULT_GROUP : group;
        }

        @Override
        public String type() {
            return "http";
        }

        /** The Content-Type among {@code headers}, whatever its case; null when there is none. */
        public static String contentType(Map<String, String> headers) {
            for (Map.Entry<String, String> h : headers.entrySet()) {
                if (h.getKey().equalsIgnoreCase("Content-Type")) {
                    return h.getValue();
                }
            }
            return null;
        }
    }

    /** A handler registered by name in a user's Java service through the AX SDK, which polls the group. */
    record Sdk(String handler, String group) implements Action {
        public Sdk {
            group = group == null ? DEFAULT_GROUP : group;
        }

        @Override
        public String type() {
            return "sdk";
        }
    }
}
