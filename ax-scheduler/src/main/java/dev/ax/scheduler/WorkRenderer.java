package dev.ax.scheduler;

import dev.ax.domain.protocol.WorkItem;
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
        }
    }
}
