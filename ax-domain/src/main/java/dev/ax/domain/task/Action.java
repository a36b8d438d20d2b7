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
}
