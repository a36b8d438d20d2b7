package dev.ax.spring;

import dev.ax.sdk.AxWorkerBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code ax.*}: where the AX server is and which runs this application takes. Only
 * {@code ax.server-url}, {@code ax.token} and {@code ax.group} are needed; the rest have the SDK's defaults.
 */
@ConfigurationProperties("ax")
public class AxProperties {

    /** Whether the application runs an AX worker for its @AxJob methods. */
    private boolean enabled = true;
    /** The AX server, e.g. {@code http://ax.internal:7070}. */
    private URI serverUrl;
    /** A token with role {@code executor}. */
    private String token;
    /** The executor group(s) this application serves, comma-separated: the {@code action.group} of its tasks. */
    private List<String> group = new ArrayList<>();
    /** How many handlers may run at the same time. */
    private int concurrency = AxWorkerBuilder.DEFAULT_CONCURRENCY;
    /** This worker's name on the server; default {@code <host>-<pid>}. A stable, unique name (the pod's) is better. */
    private String executorId;
    /** How long one long-poll waits on the server for work. */
    private Duration pollWait = AxWorkerBuilder.DEFAULT_POLL_WAIT;
    /** On shutdown (and after a timeout), how long running handlers get before they are interrupted / given up. */
    private Duration shutdownGrace = AxWorkerBuilder.DEFAULT_SHUTDOWN_GRACE;
    /** Fail the application's start when the AX server cannot be reached or refuses the token; else keep trying. */
    private boolean failFast = true;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public URI getServerUrl() {
        return serverUrl;
    }

    public void setServerUrl(URI serverUrl) {
        this.serverUrl = serverUrl;
    }

    public String getToken() {
        return token;
    }

    public void setToken(String token) {
        this.token = token;
    }

    public List<String> getGroup() {
        return group;
    }

    public void setGroup(List<String> group) {
        this.group = group;
    }

    public int getConcurrency() {
        return concurrency;
    }

    public void setConcurrency(int concurrency) {
        this.concurrency = concurrency;
    }

    public String getExecutorId() {
        return executorId;
    }

    public void setExecutorId(String executorId) {
        this.executorId = executorId;
    }

    public Duration getPollWait() {
        return pollWait;
    }

    public void setPollWait(Duration pollWait) {
        this.pollWait = pollWait;
    }

    public Duration getShutdownGrace() {
        return shutdownGrace;
    }

    public void setShutdownGrace(Duration shutdownGrace) {
        this.shutdownGrace = shutdownGrace;
    }

    public boolean isFailFast() {
        return failFast;
    }

    public void setFailFast(boolean failFast) {
        this.failFast = failFast;
    }
}
