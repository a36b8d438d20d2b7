package dev.ax.console;

/**
 * The scripts the pages load, from the WebJars on the classpath (served at {@code /webjars/...})
 * and the console's own files (at {@code /assets/...}). The versions are the pom's; a test
 * checks each file is really on the classpath.
 */
public final class Assets {
    public static final String HTMX = "/webjars/htmx.org/2.0.10/dist/htmx.min.js";
    public static final String HTMX_SSE = "/webjars/htmx-ext-sse/2.2.2/sse.js";
    public static final String CSS = "/assets/console.css";
    public static final String JS = "/assets/console.js";

    private Assets() {
    }

    /** Where a served path is found on the classpath. */
    static String resource(String path) {
        return path.startsWith("/webjars/") ? "/META-INF/resources" + path : "/dev/ax/console" + path;
    }
}
