package dev.ax.bench;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Option;

/** Options every workload shares: where PostgreSQL is, how long to warm up and measure, where results go. */
final class BenchOptions {
    @Option(
            names = "--pg-url",
            defaultValue = "${env:AX_BENCH_PG_URL:-jdbc:postgresql://127.0.0.1:5432/}",
            description = "PostgreSQL server (a database name is appended; default ${DEFAULT-VALUE})")
    String pgUrl;

    @Option(
            names = "--pg-user",
            defaultValue = "${env:AX_BENCH_PG_USER:-postgres}",
            description = "default ${DEFAULT-VALUE}")
    String pgUser;

    @Option(names = "--pg-password", defaultValue = "${env:AX_BENCH_PG_PASSWORD:-}")
    String pgPassword;

    @Option(
            names = "--mariadb-url",
            defaultValue = "${env:AX_BENCH_MARIADB_URL:-jdbc:mariadb://127.0.0.1:3306/}",
            description = "MariaDB server for AX on MariaDB (system ax-mariadb; a database name is appended;"
                    + " default ${DEFAULT-VALUE})")
    String mariadbUrl;

    @Option(
            names = "--mariadb-user",
            defaultValue = "${env:AX_BENCH_MARIADB_USER:-root}",
            description = "default ${DEFAULT-VALUE}")
    String mariadbUser;

    @Option(names = "--mariadb-password", defaultValue = "${env:AX_BENCH_MARIADB_PASSWORD:-}")
    String mariadbPassword;

    @Option(
            names = "--warmup",
            defaultValue = "5",
            description = "seconds of warm-up before measuring (default ${DEFAULT-VALUE})")
    int warmupSeconds;

    @Option(names = "--seconds", defaultValue = "20", description = "seconds measured (default ${DEFAULT-VALUE})")
    int seconds;

    @Option(
            names = "--quick",
            description = "shorter windows and smaller sizes, for a smoke run (3 s warm-up, 10 s measured)")
    boolean quick;

    @Option(
            names = "--results",
            defaultValue = "ax-bench/target/results",
            description = "where JSON results go (default ${DEFAULT-VALUE})")
    Path resultsDir;

    @Option(
            names = "--max-load",
            defaultValue = "0",
            description =
                    "before each system's run, wait until the 1-minute load average is below this (0 = do not wait); for shared machines")
    double maxLoad;

    @Option(
            names = "--max-load-wait",
            defaultValue = "300",
            description = "seconds to wait for --max-load at most, then go on (default ${DEFAULT-VALUE})")
    int maxLoadWait;

    /** Waits (bounded) for the machine to calm down, when asked to; returns the 1-minute load average then. */
    double awaitQuiet() {
        double load = Results.load1();
        if (maxLoad <= 0) {
            return load;
        }
        long deadline = System.nanoTime() + maxLoadWait * 1_000_000_000L;
        while (load >= maxLoad && System.nanoTime() < deadline) {
            System.err.printf("  load average %.2f >= %.2f: waiting%n", load, maxLoad);
            Window.sleep(10_000);
            load = Results.load1();
        }
        return load;
    }

    Pg pg() {
        return new Pg(pgUrl, pgUser, pgPassword);
    }

    MariaDb mariadb() {
        return new MariaDb(mariadbUrl, mariadbUser, mariadbPassword);
    }

    /**
     * The systems asked for, without AX on MariaDB when no MariaDB server answers at --mariadb-url (said on stderr):
     * a box without MariaDB still runs the rest of a workload.
     */
    Set<String> reachable(Set<String> systems) {
        if (systems.contains("ax-mariadb") && !mariadb().reachable()) {
            System.err.println("no MariaDB answers at " + mariadbUrl + " (--mariadb-url): AX on MariaDB left out");
            Set<String> rest = new HashSet<>(systems);
            rest.remove("ax-mariadb");
            return rest;
        }
        return systems;
    }

    int warmup() {
        return quick ? Math.min(warmupSeconds, 3) : warmupSeconds;
    }

    int measure() {
        return quick ? Math.min(seconds, 10) : seconds;
    }

    Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pgUrl", pgUrl);
        m.put("mariadbUrl", mariadbUrl);
        m.put("warmupSeconds", warmup());
        m.put("measuredSeconds", measure());
        m.put("quick", quick);
        m.put("maxLoad", maxLoad);
        return m;
    }
}
