package dev.ax.scheduler;

import dev.ax.domain.protocol.HttpCall;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.store.Json;
import dev.ax.domain.task.Action;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.TemplateContext;
import dev.ax.domain.task.Templates;
import dev.ax.store.InstanceRow;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Renders a claimed instance into the work an executor runs: templates filled in the task's
 * time zone, the AX_* environment set. Executors get no access to definitions or the store.
 */
final class WorkRenderer {
    private WorkRenderer() {
    }

    /** Throws IllegalArgumentException when a template cannot be rendered (a missing parameter). */
    static WorkItem render(InstanceRow run, TaskDefinition def, long leaseMillis) {
        TemplateContext tc = new TemplateContext(run.taskName(), run.scheduledAt(), def.trigger().timezone(), run.params(),
                run.id(), run.attempt(), run.requestId());
        // A preview run executes the approval's preview action instead of the task's own.
        Action action = run.cause() == dev.ax.domain.run.Cause.PREVIEW && def.policy().approval() != null
                && def.policy().approval().preview() != null ? def.policy().approval().preview() : def.action();
        return switch (action) {
            case Action.Shell shell -> {
                Map<String, String> env = new LinkedHashMap<>();
                shell.env().forEach((k, v) -> env.put(k, Templates.render(v, tc)));
                env.put("AX_INSTANCE_ID", Long.toString(run.id()));
                env.put("AX_REQUEST_ID", run.requestId());
                env.put("AX_TASK_NAME", run.taskName());
                env.put("AX_ATTEMPT", Integer.toString(run.attempt()));
                env.put("AX_SCHEDULED_AT", run.scheduledAt().toString());
                String workingDir = shell.workingDir() == null ? null : Templates.render(shell.workingDir(), tc);
                yield new WorkItem(run.id(), run.attempt(), run.taskName(), run.taskVersion(), run.requestId(), run.scheduledAt(),
                        "shell", Templates.render(shell.command(), tc), env, workingDir, def.policy().timeoutSeconds(), leaseMillis);
            }
            case Action.Http http -> {
                Map<String, String> headers = new LinkedHashMap<>();
                http.headers().forEach((k, v) -> headers.put(k, Templates.render(v, tc)));
                String body = body(http.body(), tc);
                if (body != null && (http.body() instanceof Map<?, ?> || http.body() instanceof java.util.List<?>)) {
                    headers.putIfAbsent("Content-Type", "application/json");
                }
                HttpCall call = new HttpCall(http.method(), Templates.render(http.url(), tc), headers, body, http.async());
                yield new WorkItem(run.id(), run.attempt(), run.taskName(), run.taskVersion(), run.requestId(), run.scheduledAt(),
                        "http", null, Map.of(), null, def.policy().timeoutSeconds(), leaseMillis, call, null, run.params());
            }
            case Action.Sdk sdk -> new WorkItem(run.id(), run.attempt(), run.taskName(), run.taskVersion(), run.requestId(),
                    run.scheduledAt(), "sdk", null, Map.of(), null, def.policy().timeoutSeconds(), leaseMillis, null, sdk.handler(),
                    run.params());
        };
    }

    /** A string body is a template; an object or array body has its string values rendered and goes as JSON. */
    private static String body(Object body, TemplateContext tc) {
        return switch (body) {
            case null -> null;
            case String s -> Templates.render(s, tc);
            default -> Json.write(renderTree(body, tc));
        };
    }

    private static Object renderTree(Object node, TemplateContext tc) {
        return switch (node) {
            case String s -> Templates.render(s, tc);
            case Map<?, ?> m -> {
                Map<Object, Object> out = new LinkedHashMap<>();
                m.forEach((k, v) -> out.put(k, renderTree(v, tc)));
                yield out;
            }
            case java.util.List<?> l -> l.stream().map(v -> renderTree(v, tc)).toList();
            case null -> null;
            default -> node;
        };
    }

    /** Checks that a run with these parameters can be rendered, before it is accepted. */
    static void check(TaskDefinition def, TemplateContext tc) {
        switch (def.action()) {
            case Action.Shell shell -> {
                Templates.render(shell.command(), tc);
                shell.env().values().forEach(v -> Templates.render(v, tc));
                if (shell.workingDir() != null) {
                    Templates.render(shell.workingDir(), tc);
                }
            }
            case Action.Http http -> {
                Templates.render(http.url(), tc);
                http.headers().values().forEach(v -> Templates.render(v, tc));
                body(http.body(), tc);
            }
            case Action.Sdk sdk -> { }
        }
    }
}
