package dev.ax.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One measured window: warm-up, then the window itself with CPU, RSS and database counters read
 * at both ends. The system under test keeps running throughout; the caller stops it afterwards.
 */
final class Window {
    final BenchDb pg;
    final String database;
    long t0Millis;
    long t1Millis;
    Proc.Cpu cpuStart;
    Proc.Cpu cpuEnd;
    BenchDb.Stats dbStart;
    BenchDb.Stats dbCost;
    long rssBytes;
    double loadAtStart = Double.NaN;
    double loadAtEnd = Double.NaN;
    private final List<Probe> probes = new ArrayList<>();

    Window(BenchDb pg, String database) {
        this.pg = pg;
        this.database = database;
    }

    /**
     * Something else read at the window's two ends, as close to them as the window's own counters: a workload that
     * wants more of the same window than CPU and the database's totals (e.g. what each table wrote).
     */
    interface Probe {
        void atStart();

        void atEnd();

        /** What it found; called once the window is over (the system may still be running). */
        Map<String, Object> result();
    }

    Window watch(List<? extends Probe> more) {
        probes.addAll(more);
        return this;
    }

    /** Every probe's result, in the order they were added. */
    Map<String, Object> probeResults() {
        Map<String, Object> m = new LinkedHashMap<>();
        probes.forEach(p -> m.putAll(p.result()));
        return m;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Warm-up, then the measured window; returns at t1. */
    Window measure(int warmupSeconds, int seconds) {
        sleep(warmupSeconds * 1000L);
        dbStart = pg.stats(database);
        // The window is whole seconds [t0, t0 + S): exactly S slots of an every-second schedule.
        long now = System.currentTimeMillis();
        t0Millis = (now / 1000 + 1) * 1000;
        sleep(t0Millis - now);
        cpuStart = Proc.Cpu.now(pg.processName());
        probes.forEach(Probe::atStart);
        loadAtStart = Results.load1();
        long end = t0Millis + seconds * 1000L;
        sleep(Math.max(0, end - System.currentTimeMillis()));
        cpuEnd = Proc.Cpu.now(pg.processName());
        probes.forEach(Probe::atEnd);
        loadAtEnd = Results.load1();
        t1Millis = end;
        rssBytes = Proc.rssBytes();
        return this;
    }

    void begin() {
        loadAtStart = Results.load1();
        dbStart = pg.stats(database);
        t0Millis = System.currentTimeMillis();
        cpuStart = Proc.Cpu.now(pg.processName());
        probes.forEach(Probe::atStart);
    }

    void end() {
        loadAtEnd = Results.load1();
        t1Millis = System.currentTimeMillis();
        cpuEnd = Proc.Cpu.now(pg.processName());
        probes.forEach(Probe::atEnd);
        rssBytes = Proc.rssBytes();
    }

    /** Reads the database counters once the system is stopped (its connections closed, so every backend flushed its statistics). */
    void afterStop() {
        dbCost = pg.stats(database).minus(dbStart);
    }

    double jvmCores() {
        return cpuStart.jvmCoresUntil(cpuEnd);
    }

    double pgCores() {
        return cpuStart.pgCoresUntil(cpuEnd);
    }

    double boxCores() {
        return cpuStart.boxCoresUntil(cpuEnd);
    }

    double seconds() {
        return (t1Millis - t0Millis) / 1000.0;
    }

    /** CPU, RSS and what the database wrote, per run where {@code runs} is the number of runs these costs bought. */
    Map<String, Object> costs(long runs, Map<String, Long> tableSizes) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jvmCpuCores", round2(jvmCores()));
        m.put("postgresCpuCores", round2(pgCores()));
        m.put("boxCpuCores", round2(boxCores()));
        m.put("jvmRssBytes", rssBytes);
        m.put("loadAverageAtStart", loadAtStart);
        m.put("loadAverageAtEnd", loadAtEnd);
        double secs = seconds();
        m.put("jvmCpuMsPerRun", runs > 0 ? round2(jvmCores() * secs * 1000 / runs) : null);
        m.put("postgresCpuMsPerRun", runs > 0 ? round2(pgCores() * secs * 1000 / runs) : null);
        m.put("boxCpuMsPerRun", runs > 0 ? round2(boxCores() * secs * 1000 / runs) : null);
        if (dbCost != null && runs > 0) {
            m.put("dbCommitsPerRun", round2((double) dbCost.commits() / runs));
            m.put("dbRowsInsertedPerRun", round2((double) dbCost.inserted() / runs));
            m.put("dbRowsUpdatedPerRun", round2((double) dbCost.updated() / runs));
            m.put("dbRowsDeletedPerRun", round2((double) dbCost.deleted() / runs));
            m.put("walBytesPerRun", Math.round((double) dbCost.walBytes() / runs));
            m.put("dbCountersNote", "from window start to the system's stop, divided by the runs started in that span");
        }
        m.put("tableBytes", tableSizes);
        m.put(
                "tableBytesTotal",
                tableSizes.values().stream().mapToLong(Long::longValue).sum());
        return m;
    }

    static double round2(double v) {
        return Double.isNaN(v) ? Double.NaN : Math.round(v * 100) / 100.0;
    }
}
