package dev.ax.scheduler;

import dev.ax.domain.task.TaskDefinition;
import java.util.ArrayList;
import java.util.List;

/**
 * A warning, not an error, when no live executor of a task's group carries all its environment
 * labels: the executor may simply not be started yet. Its runs wait READY meanwhile, visible as such
 * (and the watchdog flags a READY backlog that does not drain).
 */
final class EnvironmentCheck {
    private EnvironmentCheck() {}

    static List<String> warnings(NodeContext ctx, TaskDefinition def, List<String> warnings) {
        if (def.environment().isEmpty()) {
            return warnings;
        }
        boolean served = ctx.store()
                .tx(tx -> ctx.store()
                        .executors()
                        .liveExecutorWithLabels(
                                tx,
                                def.group(),
                                def.environment(),
                                ctx.config().executorAlive().toMillis()));
        if (served) {
            return warnings;
        }
        List<String> out = new ArrayList<>(warnings);
        out.add("environment: no live executor of group " + def.group() + " carries the labels " + def.environment()
                + "; runs wait READY until one does (ax executor --group " + def.group() + " --label "
                + String.join(" --label ", def.environment()) + ")");
        return out;
    }
}
