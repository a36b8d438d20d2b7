package dev.ax.bench;

import java.util.List;

/** One line of the summary against the bar of BENCHMARKS.md: the goal, AX's figure, the anchors', and whether it is met. */
record Bar(
        String workload,
        String goal,
        String ax,
        String quartz,
        String dbScheduler,
        String axVsQuartz,
        String axVsDbScheduler,
        String met) {

    static Table table(List<Bar> bars) {
        Table t = new Table(
                "AX against the bar (BENCHMARKS.md)",
                "workload",
                "goal",
                "AX",
                "Quartz",
                "db-scheduler",
                "AX / Quartz",
                "AX / db-scheduler",
                "met");
        for (Bar b : bars) {
            t.row(b.workload, b.goal, b.ax, b.quartz, b.dbScheduler, b.axVsQuartz, b.axVsDbScheduler, b.met);
        }
        return t;
    }

    static String yes(boolean met) {
        return met ? "met" : "NOT met";
    }
}
