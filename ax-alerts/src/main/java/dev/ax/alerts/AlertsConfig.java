package dev.ax.alerts;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How a node alerts and watches itself. Immutable; defaults named {@code DEFAULT_*}; an invalid
 * value fails with the field's name. Read from the {@code --alerts} JSON file by
 * {@link AlertsConfigReader}; tests build it directly with short intervals.
 *
 * @param channels       configured channels by name; {@code policy.notifyOnFailure} refers to these names
 * @param consoleUrl     the web console's base URL for links in alerts; null = alerts carry no link
 * @param systemChannels where watchdog and anomaly alerts go (anomalies also to the task's own channels)
 * @param stormLimit     more alerts than this for one channel within a minute are collapsed into one summary
 * @param languages      the language of each channel that names one ({@code "language": "zh-CN"})
 * @param language       the language of every other channel: the server's ({@code --locale}), {@link #DEFAULT_LANGUAGE}
 *                       unless set
 */
public record AlertsConfig(
        Map<String, ChannelConfig> channels,
        String consoleUrl,
        List<String> systemChannels,
        int stormLimit,
        Pipeline pipeline,
        Watch watch,
        Anomaly anomaly,
        Logs logs,
        Map<String, Locale> languages,
        Locale language) {
    public static final int DEFAULT_STORM_LIMIT = 10;
    public static final Locale DEFAULT_LANGUAGE = AlertWords.EN;

    /** No channels, default timings: the node still watches itself, detects anomalies and serves metrics. */
    public static final AlertsConfig NONE = new AlertsConfig(
            Map.of(), null, null, DEFAULT_STORM_LIMIT, Pipeline.DEFAULT, Watch.DEFAULT, Anomaly.DEFAULT, Logs.DEFAULT);

    /** Every channel in {@link #DEFAULT_LANGUAGE}. */
    public AlertsConfig(
            Map<String, ChannelConfig> channels,
            String consoleUrl,
            List<String> systemChannels,
            int stormLimit,
            Pipeline pipeline,
            Watch watch,
            Anomaly anomaly,
            Logs logs) {
        this(channels, consoleUrl, systemChannels, stormLimit, pipeline, watch, anomaly, logs, Map.of(), null);
    }

    public AlertsConfig {
        channels = channels == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(channels));
        if (consoleUrl != null) {
            consoleUrl = consoleUrl.endsWith("/") ? consoleUrl.substring(0, consoleUrl.length() - 1) : consoleUrl;
        }
        // Without a list, system alerts go to every channel: a watchdog alert nobody receives is useless.
        systemChannels = systemChannels == null ? List.copyOf(channels.keySet()) : List.copyOf(systemChannels);
        for (String s : systemChannels) {
            if (!channels.containsKey(s)) {
                throw new IllegalArgumentException("systemChannels: '" + s + "' is not a configured channel");
            }
        }
        if (stormLimit < 1) {
            throw new IllegalArgumentException("stormLimit must be at least 1, was " + stormLimit);
        }
        pipeline = pipeline == null ? Pipeline.DEFAULT : pipeline;
        watch = watch == null ? Watch.DEFAULT : watch;
        anomaly = anomaly == null ? Anomaly.DEFAULT : anomaly;
        logs = logs == null ? Logs.DEFAULT : logs;
        languages = languages == null ? Map.of() : Map.copyOf(languages);
        language = language == null ? DEFAULT_LANGUAGE : language;
        for (Map.Entry<String, Locale> l : languages.entrySet()) {
            if (!channels.containsKey(l.getKey())) {
                throw new IllegalArgumentException("channels." + l.getKey() + ".language: no such channel");
            }
            checkLanguage("channels." + l.getKey() + ".language", l.getValue());
        }
        checkLanguage("language", language);
    }

    private static void checkLanguage(String field, Locale l) {
        if (!AlertWords.SUPPORTED.contains(l)) {
            throw new IllegalArgumentException(
                    field + " must be one of " + AlertWords.tags() + ", was " + l.toLanguageTag());
        }
    }

    /** The language a channel's alerts are written in: its own, else the server's. */
    public Locale languageOf(String channel) {
        return languages.getOrDefault(channel, language);
    }

    public AlertsConfig withWatch(Watch w) {
        return new AlertsConfig(
                channels, consoleUrl, systemChannels, stormLimit, pipeline, w, anomaly, logs, languages, language);
    }

    public AlertsConfig withAnomaly(Anomaly a) {
        return new AlertsConfig(
                channels, consoleUrl, systemChannels, stormLimit, pipeline, watch, a, logs, languages, language);
    }

    public AlertsConfig withPipeline(Pipeline p) {
        return new AlertsConfig(
                channels, consoleUrl, systemChannels, stormLimit, p, watch, anomaly, logs, languages, language);
    }

    public AlertsConfig withLogs(Logs l) {
        return new AlertsConfig(
                channels, consoleUrl, systemChannels, stormLimit, pipeline, watch, anomaly, l, languages, language);
    }

    /** The server's language ({@code --locale}): the alerts of every channel that names none are written in it. */
    public AlertsConfig withLanguage(Locale serverLanguage) {
        return new AlertsConfig(
                channels,
                consoleUrl,
                systemChannels,
                stormLimit,
                pipeline,
                watch,
                anomaly,
                logs,
                languages,
                serverLanguage);
    }

    /** The languages of channels that name their own. */
    public AlertsConfig withLanguages(Map<String, Locale> byChannel) {
        return new AlertsConfig(
                channels, consoleUrl, systemChannels, stormLimit, pipeline, watch, anomaly, logs, byChannel, language);
    }

    /**
     * The event tail and the delivery loop.
     *
     * @param gapWait     how long the tail waits at a hole in the event ids (a transaction that
     *                    took an id but has not committed yet) before taking it for a rollback
     * @param maxAttempts deliveries of one alert before it is given up (FAILED)
     * @param firstRetry  the wait after a failed delivery; each further one waits three times longer (at most 30 min)
     */
    public record Pipeline(
            Duration tailInterval,
            int tailBatch,
            Duration gapWait,
            Duration deliveryInterval,
            int maxAttempts,
            Duration firstRetry) {
        public static final Duration DEFAULT_TAIL_INTERVAL = Duration.ofMillis(500);
        public static final int DEFAULT_TAIL_BATCH = 500;
        public static final Duration DEFAULT_GAP_WAIT = Duration.ofSeconds(10);
        public static final Duration DEFAULT_DELIVERY_INTERVAL = Duration.ofMillis(500);
        public static final int DEFAULT_MAX_ATTEMPTS = 6;
        public static final Duration DEFAULT_FIRST_RETRY = Duration.ofSeconds(15);
        public static final Pipeline DEFAULT = new Pipeline(
                DEFAULT_TAIL_INTERVAL,
                DEFAULT_TAIL_BATCH,
                DEFAULT_GAP_WAIT,
                DEFAULT_DELIVERY_INTERVAL,
                DEFAULT_MAX_ATTEMPTS,
                DEFAULT_FIRST_RETRY);

        public Pipeline {
            ConfigChecks.positive("pipeline.tailInterval", tailInterval);
            ConfigChecks.positive("pipeline.gapWait", gapWait);
            ConfigChecks.positive("pipeline.deliveryInterval", deliveryInterval);
            ConfigChecks.atLeast("pipeline.tailBatch", tailBatch, 1);
            ConfigChecks.atLeast("pipeline.maxAttempts", maxAttempts, 1);
            ConfigChecks.positive("pipeline.firstRetry", firstRetry);
        }

        public Pipeline withFirstRetry(Duration d) {
            return new Pipeline(tailInterval, tailBatch, gapWait, deliveryInterval, maxAttempts, d);
        }

        public Pipeline withGapWait(Duration d) {
            return new Pipeline(tailInterval, tailBatch, d, deliveryInterval, maxAttempts, firstRetry);
        }
    }

    /**
     * The self-watchdog.
     *
     * @param loopStall   the firing loop not ticking for this long fails "scheduler-loop"
     * @param backlogAge  a READY run waiting this long for an executor fails "ready-backlog"
     * @param silence     tasks overdue this long and no scheduled run created for this long fails "silence"
     * @param noExecutor  READY runs this old in a group without a live executor fail "executors"
     * @param clockOffset a node whose clock is further than this from the database's is "degraded" (scheduling goes by
     *                    the database's clock and is not affected; what the node logs and times is)
     */
    public record Watch(
            Duration interval,
            Duration loopStall,
            Duration backlogAge,
            Duration silence,
            Duration noExecutor,
            Duration clockOffset) {
        public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(30);
        public static final Duration DEFAULT_LOOP_STALL = Duration.ofSeconds(60);
        public static final Duration DEFAULT_BACKLOG_AGE = Duration.ofMinutes(5);
        public static final Duration DEFAULT_SILENCE = Duration.ofMinutes(5);
        public static final Duration DEFAULT_NO_EXECUTOR = Duration.ofSeconds(30);
        public static final Duration DEFAULT_CLOCK_OFFSET = Duration.ofSeconds(5);
        public static final Watch DEFAULT = new Watch(
                DEFAULT_INTERVAL,
                DEFAULT_LOOP_STALL,
                DEFAULT_BACKLOG_AGE,
                DEFAULT_SILENCE,
                DEFAULT_NO_EXECUTOR,
                DEFAULT_CLOCK_OFFSET);

        /** A watch with the default clock offset. */
        public Watch(
                Duration interval, Duration loopStall, Duration backlogAge, Duration silence, Duration noExecutor) {
            this(interval, loopStall, backlogAge, silence, noExecutor, DEFAULT_CLOCK_OFFSET);
        }

        public Watch {
            ConfigChecks.positive("watchdog.interval", interval);
            ConfigChecks.positive("watchdog.loopStall", loopStall);
            ConfigChecks.positive("watchdog.backlogAge", backlogAge);
            ConfigChecks.positive("watchdog.silence", silence);
            ConfigChecks.positive("watchdog.noExecutor", noExecutor);
            ConfigChecks.positive("watchdog.clockOffset", clockOffset);
        }
    }

    /**
     * Anomaly detection.
     *
     * @param window        how far back runs are compared with the schedule
     * @param grace         a slot younger than this is not yet expected to have a run
     * @param longRunFactor a run longer than this many times the p95 of recent successes is "unusually long"
     * @param longRunMin    ... and longer than this in any case
     * @param longRunSamples successes looked at; fewer than {@link #MIN_SAMPLES} = no judgement
     */
    public record Anomaly(
            Duration interval,
            Duration window,
            Duration grace,
            double longRunFactor,
            Duration longRunMin,
            int longRunSamples) {
        public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(60);
        public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(10);
        public static final Duration DEFAULT_GRACE = Duration.ofSeconds(60);
        public static final double DEFAULT_LONG_RUN_FACTOR = 3.0;
        public static final Duration DEFAULT_LONG_RUN_MIN = Duration.ofMinutes(1);
        public static final int DEFAULT_LONG_RUN_SAMPLES = 20;
        public static final int MIN_SAMPLES = 5;
        public static final Anomaly DEFAULT = new Anomaly(
                DEFAULT_INTERVAL,
                DEFAULT_WINDOW,
                DEFAULT_GRACE,
                DEFAULT_LONG_RUN_FACTOR,
                DEFAULT_LONG_RUN_MIN,
                DEFAULT_LONG_RUN_SAMPLES);

        public Anomaly {
            ConfigChecks.positive("anomaly.interval", interval);
            ConfigChecks.positive("anomaly.window", window);
            ConfigChecks.positive("anomaly.grace", grace);
            ConfigChecks.positive("anomaly.longRunMin", longRunMin);
            if (!(longRunFactor >= 1.0)) {
                throw new IllegalArgumentException("anomaly.longRunFactor must be at least 1, was " + longRunFactor);
            }
            ConfigChecks.atLeast("anomaly.longRunSamples", longRunSamples, MIN_SAMPLES);
        }
    }

    /**
     * Run logs (ax_log) and the server's own log file.
     *
     * @param runMaxBytes       per-run output kept; beyond it the middle is cut (LOG_TRUNCATED)
     * @param runRetentionDays  output of runs finished longer ago is deleted
     * @param upkeepInterval    how often the cap and the retention are applied
     * @param serverFileMaxBytes one server log file rolls over at this size
     * @param serverTotalMaxBytes all server log files together stay under this
     */
    public record Logs(
            long runMaxBytes,
            int runRetentionDays,
            Duration upkeepInterval,
            long serverFileMaxBytes,
            long serverTotalMaxBytes) {
        public static final long DEFAULT_RUN_MAX_BYTES = 10L * 1024 * 1024;
        public static final int DEFAULT_RUN_RETENTION_DAYS = 30;
        public static final Duration DEFAULT_UPKEEP_INTERVAL = Duration.ofMinutes(5);
        public static final long DEFAULT_SERVER_FILE_MAX_BYTES = 10L * 1024 * 1024;
        public static final long DEFAULT_SERVER_TOTAL_MAX_BYTES = 100L * 1024 * 1024;
        public static final Logs DEFAULT = new Logs(
                DEFAULT_RUN_MAX_BYTES,
                DEFAULT_RUN_RETENTION_DAYS,
                DEFAULT_UPKEEP_INTERVAL,
                DEFAULT_SERVER_FILE_MAX_BYTES,
                DEFAULT_SERVER_TOTAL_MAX_BYTES);

        public Logs {
            if (runMaxBytes < 64 * 1024) {
                throw new IllegalArgumentException("logs.runMaxBytes must be at least 65536, was " + runMaxBytes);
            }
            ConfigChecks.atLeast("logs.runRetentionDays", runRetentionDays, 1);
            ConfigChecks.positive("logs.upkeepInterval", upkeepInterval);
            if (serverFileMaxBytes < 1024 * 1024 || serverTotalMaxBytes < serverFileMaxBytes) {
                throw new IllegalArgumentException(
                        "logs.serverFileMaxMB must be at least 1 and logs.serverTotalMaxMB at least as large");
            }
        }
    }
}
