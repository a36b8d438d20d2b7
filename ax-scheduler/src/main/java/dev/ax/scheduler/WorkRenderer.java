package dev.ax.scheduler;

import dev.ax.domain.protocol.HttpCall;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.task.Action;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.template.Target;
import dev.ax.domain.template.TemplateContext;
import dev.ax.domain.template.TemplateException;
import dev.ax.domain.template.Templates;
import dev.ax.store.Json;
import dev.ax.store.RunRow;
import dev.ax.store.Tx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Renders a claimed run into the work an executor runs: templates filled in the task's time zone,
 * each value written for where it lands ({@link Target}), the AX_* environment set, secrets resolved.
 * Executors get no access to definitions or the store.
 */
final class WorkRenderer {
    /** The prefix of the variable each trigger parameter is given as, to shell actions: {@code AX_PARAM_<NAME>}. */
    static final String PARAM_ENV_PREFIX = "AX_PARAM_";

    private WorkRenderer() {}

    /** Set to 1 for an attempt that follows one its executor lost: that attempt may have done part of the work. */
    static final String PREVIOUS_ATTEMPT_LOST_ENV = "AX_PREVIOUS_ATTEMPT_LOST";

    static final String PREVIOUS_ATTEMPT_LOST_HEADER = "X-AX-Previous-Attempt-Lost";

    /**
     * The work item of {@code run}, with the secrets it refers to read in {@code tx}.
     *
     * @throws IllegalArgumentException when the run cannot be rendered (a missing parameter or secret, a
     *                                  value that cannot stand where the template puts it)
     */
    static WorkItem render(Tx tx, NodeContext ctx, RunRow run, TaskDefinition def) {
        long leaseMillis = ctx.config().leaseMillis();
        Action action = action(run, def);
        Set<String> names = secretNames(action);
        Map<String, String> values = names.isEmpty() ? Map.of() : ctx.secrets().read(tx, names);
        // A body cut off with its executor may have done part of its work: the next attempt is told, to check.
        boolean previousLost =
                run.attempt() > 1 && ctx.store().events().has(tx, run.id(), run.attempt() - 1, EventType.EXECUTOR_LOST);
        // A scheduled run (or one stored before its task declared defaults) gets the declared defaults.
        Map<String, Object> params = def.params().withDefaults(run.params());
        TemplateContext tc = new TemplateContext(
                run.taskName(),
                run.scheduledAt(),
                def.trigger().timezone(),
                params,
                run.id(),
                run.attempt(),
                run.requestId(),
                values);
        WorkItem item = switch (action) {
            case Action.Shell shell -> {
                Map<String, String> env = env(shell, tc);
                env.put("AX_INSTANCE_ID", Long.toString(run.id()));
                env.put("AX_REQUEST_ID", run.requestId());
                env.put("AX_TASK_NAME", run.taskName());
                env.put("AX_ATTEMPT", Integer.toString(run.attempt()));
                env.put("AX_SCHEDULED_AT", run.scheduledAt().toString());
                if (previousLost) {
                    env.put(PREVIOUS_ATTEMPT_LOST_ENV, "1");
                }
                String workingDir =
                        shell.workingDir() == null ? null : Templates.render(shell.workingDir(), Target.PATH, tc);
                yield new WorkItem(
                        run.id(),
                        run.attempt(),
                        run.taskName(),
                        run.taskVersion(),
                        run.requestId(),
                        run.scheduledAt(),
                        "shell",
                        Templates.render(shell.command(), Target.COMMAND, tc),
                        env,
                        workingDir,
                        def.policy().timeoutSeconds(),
                        leaseMillis);
            }
            case Action.Http http ->
                new WorkItem(
                        run.id(),
                        run.attempt(),
                        run.taskName(),
                        run.taskVersion(),
                        run.requestId(),
                        run.scheduledAt(),
                        "http",
                        null,
                        Map.of(),
                        null,
                        def.policy().timeoutSeconds(),
                        leaseMillis,
                        previousLost ? call(http, tc).withHeader(PREVIOUS_ATTEMPT_LOST_HEADER, "1") : call(http, tc),
                        null,
                        params);
            case Action.Sdk sdk ->
                new WorkItem(
                        run.id(),
                        run.attempt(),
                        run.taskName(),
                        run.taskVersion(),
                        run.requestId(),
                        run.scheduledAt(),
                        "sdk",
                        null,
                        Map.of(),
                        null,
                        def.policy().timeoutSeconds(),
                        leaseMillis,
                        null,
                        sdk.handler(),
                        params);
        };
        List<String> masks = names.stream()
                .map(values::get)
                .filter(v -> v != null && !v.isEmpty())
                .toList();
        return masks.isEmpty() ? item : item.withMasks(masks);
    }

    /**
     * Checks that a run with these parameters can be rendered, before it is accepted: every template, with
     * stand-ins for the secrets (whose values are never read before the hand-off).
     */
    static void check(TaskDefinition def, TemplateContext tc) {
        Map<String, String> standIns = new LinkedHashMap<>();
        secretNames(def.action()).forEach(name -> standIns.put(name, "secret"));
        TemplateContext checked = tc.withSecrets(standIns);
        switch (def.action()) {
            case Action.Shell shell -> {
                env(shell, checked);
                Templates.render(shell.command(), Target.COMMAND, checked);
                if (shell.workingDir() != null) {
                    Templates.render(shell.workingDir(), Target.PATH, checked);
                }
            }
            case Action.Http http -> call(http, checked);
            case Action.Sdk sdk -> {}
        }
    }

    /** A preview run executes the approval's preview action instead of the task's own. */
    private static Action action(RunRow run, TaskDefinition def) {
        return run.cause() == Cause.PREVIEW
                        && def.policy().approval() != null
                        && def.policy().approval().preview() != null
                ? def.policy().approval().preview()
                : def.action();
    }

    /**
     * The task's own variables, then each parameter as {@code AX_PARAM_<NAME>}: a script can read a value from
     * its environment, which no quoting can get wrong (lists and objects as JSON text).
     */
    private static Map<String, String> env(Action.Shell shell, TemplateContext tc) {
        Map<String, String> env = new LinkedHashMap<>();
        shell.env().forEach((k, v) -> env.put(k, Templates.render(v, Target.ENV, tc)));
        tc.params().forEach((name, value) -> {
            // Names are checked when a run is triggered; a run stored before that check keeps an odd name out of the
            // environment.
            if (value != null && Templates.isParameterName(name)) {
                String text = value instanceof Map<?, ?> || value instanceof List<?>
                        ? Json.write(value)
                        : Templates.text(value);
                if (text.indexOf('\0') >= 0) {
                    throw new TemplateException(
                            "parameter " + name + " holds a NUL character, which no environment can carry", name);
                }
                env.put(PARAM_ENV_PREFIX + Templates.envName(name), text);
            }
        });
        return env;
    }

    private static HttpCall call(Action.Http http, TemplateContext tc) {
        Map<String, String> headers = new LinkedHashMap<>();
        http.headers().forEach((k, v) -> headers.put(k, Templates.render(v, Target.HEADER, tc)));
        String body = switch (http.body()) {
            case null -> null;
            case String s -> Templates.render(s, Target.ofBody(Action.Http.contentType(http.headers()), s), tc);
            default -> {
                if (Action.Http.contentType(headers) == null) {
                    headers.put("Content-Type", "application/json");
                }
                yield Json.write(renderTree(http.body(), tc)); // the JSON writer escapes every rendered string
            }
        };
        return new HttpCall(http.method(), Templates.render(http.url(), Target.URL, tc), headers, body, http.async());
    }

    private static Object renderTree(Object node, TemplateContext tc) {
        return switch (node) {
            case String s -> Templates.render(s, Target.TEXT, tc);
            case Map<?, ?> m -> {
                Map<Object, Object> out = new LinkedHashMap<>();
                m.forEach((k, v) -> out.put(k, renderTree(v, tc)));
                yield out;
            }
            case List<?> l -> {
                List<Object> out = new ArrayList<>(l.size());
                l.forEach(v -> out.add(renderTree(v, tc)));
                yield out;
            }
            case null -> null;
            default -> node;
        };
    }

    /** The secrets an action refers to, wherever in it. */
    static Set<String> secretNames(Action action) {
        Set<String> names = new LinkedHashSet<>();
        switch (action) {
            case Action.Shell shell -> shell.env().values().forEach(v -> names.addAll(Templates.secrets(v)));
            case Action.Http http -> {
                names.addAll(Templates.secrets(http.url()));
                http.headers().values().forEach(v -> names.addAll(Templates.secrets(v)));
                collectSecrets(http.body(), names);
            }
            case Action.Sdk sdk -> {}
        }
        return names;
    }

    private static void collectSecrets(Object node, Set<String> names) {
        switch (node) {
            case String s -> names.addAll(Templates.secrets(s));
            case Map<?, ?> m -> m.values().forEach(v -> collectSecrets(v, names));
            case List<?> l -> l.forEach(v -> collectSecrets(v, names));
            case null, default -> {}
        }
    }
}
