package dev.ax.domain.task;

import static dev.ax.domain.task.JsonReader.path;

import dev.ax.domain.task.Dependency.Scope;
import dev.ax.domain.task.DependencyPolicy.OnUpstreamFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The top-level {@code dependsOn} array and {@code dependencyPolicy} object of a task definition.
 * Checks the shape of each entry here; whether the named tasks exist and form no cycle needs the
 * other tasks, so the scheduler checks that when the task is saved.
 *
 * <pre>
 * "dependsOn": [{"task": "sync_layer3", "scope": "sameDate"},
 *               {"task": "fx_rates", "scope": "latest", "window": "PT6H"},
 *               {"scope": "previousSlot"}],
 * "dependencyPolicy": {"onUpstreamFailure": "WAIT", "waitDeadline": "PT6H"}
 * </pre>
 * Durations are ISO-8601 ({@code PT6H}, {@code P1D}).
 */
final class DependencyCodec {
    static final int MAX_DEPENDENCIES = 50;
    private static final Set<String> ENTRY_FIELDS = Set.of("task", "scope", "window");
    private static final Set<String> POLICY_FIELDS = Set.of("onUpstreamFailure", "waitDeadline");

    private DependencyCodec() {}

    static DependencyPolicy read(JsonReader in, String self, Object dependsOnValue, Object policyValue) {
        List<Object> entries = in.array(dependsOnValue, "dependsOn");
        List<Dependency> deps = new ArrayList<>();
        if (entries != null) {
            if (entries.size() > MAX_DEPENDENCIES) {
                in.error("dependsOn", "at most " + MAX_DEPENDENCIES + " dependencies");
            }
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < entries.size(); i++) {
                Dependency d = entry(in, self, entries.get(i), path("dependsOn", i));
                if (d != null && !seen.add(d.task() + "/" + d.scope())) {
                    in.error(
                            path("dependsOn", i),
                            "repeats the dependency on " + d.task() + " with scope "
                                    + d.scope().wireName());
                } else if (d != null) {
                    deps.add(d);
                }
            }
        }
        OnUpstreamFailure onFailure = DependencyPolicy.DEFAULT_ON_UPSTREAM_FAILURE;
        Duration deadline = DependencyPolicy.DEFAULT_WAIT_DEADLINE;
        Map<String, Object> p = in.object(policyValue, "dependencyPolicy");
        if (p != null) {
            in.rejectUnknown(p, "dependencyPolicy", POLICY_FIELDS);
            if ((entries == null || entries.isEmpty())) {
                in.error("dependencyPolicy", "applies only to a task with dependsOn");
            }
            String f = in.string(p.get("onUpstreamFailure"), "dependencyPolicy.onUpstreamFailure");
            if (f != null) {
                try {
                    onFailure = OnUpstreamFailure.valueOf(f);
                } catch (IllegalArgumentException e) {
                    in.error("dependencyPolicy.onUpstreamFailure", "must be WAIT, SKIP or FAIL");
                }
            }
            Duration d = in.duration(p.get("waitDeadline"), "dependencyPolicy.waitDeadline");
            if (d != null) {
                deadline = d;
            }
        }
        return deps.isEmpty() ? DependencyPolicy.NONE : new DependencyPolicy(deps, onFailure, deadline);
    }

    private static Dependency entry(JsonReader in, String self, Object value, String field) {
        Map<String, Object> e = in.object(value, field);
        if (e == null) {
            if (value == null) {
                in.error(field, "must be an object such as {\"task\":\"upstream\",\"scope\":\"sameDate\"}");
            }
            return null;
        }
        in.rejectUnknown(e, field, ENTRY_FIELDS);
        String scopeText =
                e.get("scope") == null ? Scope.SAME_DATE.wireName() : in.string(e.get("scope"), path(field, "scope"));
        Scope scope = scopeText == null ? null : Scope.fromWire(scopeText);
        if (scopeText != null && scope == null) {
            in.error(
                    path(field, "scope"),
                    "unknown scope '" + scopeText + "'; expected sameDate, latest or previousSlot");
        }
        String task = e.get("task") == null ? null : TaskDefinitionCodec.name(in, e.get("task"), path(field, "task"));
        if (scope == Scope.PREVIOUS_SLOT) {
            if (task != null && self != null && !task.equals(self)) {
                in.error(
                        path(field, "task"),
                        "previousSlot means this task's own previous run; leave task out or name " + self);
                return null;
            }
            task = self;
        } else if (e.get("task") == null) {
            in.error(path(field, "task"), "is required");
            return null;
        } else if (task != null && task.equals(self)) {
            in.error(path(field, "task"), "a task may depend on itself only with scope previousSlot");
            return null;
        }
        Duration window = null;
        if (scope == Scope.LATEST) {
            window = in.duration(in.required(e, field, "window"), path(field, "window"));
            if (window == null) {
                return null;
            }
        } else if (e.get("window") != null) {
            in.error(path(field, "window"), "applies only to scope latest");
        }
        return task == null || scope == null ? null : new Dependency(task, scope, window);
    }

    static void write(Map<String, Object> root, DependencyPolicy deps) {
        if (deps.isEmpty()) {
            return; // a task without dependencies keeps the JSON it always had
        }
        List<Object> entries = new ArrayList<>();
        for (Dependency d : deps.dependsOn()) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("task", d.task());
            e.put("scope", d.scope().wireName());
            if (d.window() != null) {
                e.put("window", d.window().toString());
            }
            entries.add(e);
        }
        root.put("dependsOn", entries);
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("onUpstreamFailure", deps.onUpstreamFailure().name());
        p.put("waitDeadline", deps.waitDeadline().toString());
        root.put("dependencyPolicy", p);
    }
}
