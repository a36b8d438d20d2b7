package dev.ax.alerts;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy;
import ch.qos.logback.core.util.FileSize;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's own log, apart from run output (which goes to ax_log, capped): a rolling file
 * {@code <data dir>/logs/ax-server.log}, rolled daily and at {@code logs.serverFileMaxMB}, kept
 * under {@code logs.serverTotalMaxMB} in all, so neither a chatty node nor a long uptime fills the
 * disk. Added to logback's root logger at start-up and removed at close; it gets what the logging
 * configuration lets through (AX at INFO, libraries at WARN).
 */
public final class ServerLogFile implements AutoCloseable {
    public static final String FILE_NAME = "ax-server.log";
    static final int MAX_HISTORY_DAYS = 30;

    private final RollingFileAppender<ILoggingEvent> appender;

    private ServerLogFile(RollingFileAppender<ILoggingEvent> appender) {
        this.appender = appender;
    }

    /** Starts writing the server log under {@code dir}; a no-op when logback is not the logging backend. */
    public static ServerLogFile install(Path dir, AlertsConfig.Logs limits) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext lc)) {
            return new ServerLogFile(null);
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(lc);
        encoder.setPattern("%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{36} - %msg%n");
        encoder.start();
        RollingFileAppender<ILoggingEvent> appender = new RollingFileAppender<>();
        appender.setContext(lc);
        appender.setName("ax-server-file-" + dir.toAbsolutePath());
        appender.setFile(dir.resolve(FILE_NAME).toString());
        appender.setEncoder(encoder);
        SizeAndTimeBasedRollingPolicy<ILoggingEvent> policy = new SizeAndTimeBasedRollingPolicy<>();
        policy.setContext(lc);
        policy.setParent(appender);
        policy.setFileNamePattern(
                dir.resolve("ax-server.%d{yyyy-MM-dd}.%i.log.gz").toString());
        policy.setMaxFileSize(new FileSize(limits.serverFileMaxBytes()));
        policy.setTotalSizeCap(new FileSize(limits.serverTotalMaxBytes()));
        policy.setMaxHistory(MAX_HISTORY_DAYS);
        policy.start();
        appender.setRollingPolicy(policy);
        appender.start();
        lc.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
        return new ServerLogFile(appender);
    }

    /** The current file, or null when not writing one. */
    public Path file() {
        return appender == null ? null : Path.of(appender.getFile());
    }

    @Override
    public void close() {
        if (appender != null && LoggerFactory.getILoggerFactory() instanceof LoggerContext lc) {
            lc.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(appender);
            appender.stop();
        }
    }
}
