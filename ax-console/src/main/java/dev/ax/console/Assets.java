package dev.ax.console;

import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The four files the pages load: two scripts from the WebJars on the classpath (served at
 * {@code /webjars/...}) and the console's own stylesheet and script (at {@code /assets/...}).
 * The versions are the pom's; a test checks each file is really on the classpath.
 *
 * <p>Each is one route serving bytes read from the classpath once, when the routes are added. A static-files
 * handler would do the same for a whole directory, but it mounts the jar as a file system to find it,
 * which costs start-up a third of a second on a fat jar; these four paths are all the console needs,
 * and nothing else under them can be fetched.
 */
public final class Assets {
    public static final String HTMX = "/webjars/htmx.org/2.0.10/dist/htmx.min.js";
    public static final String HTMX_SSE = "/webjars/htmx-ext-sse/2.2.2/sse.js";
    public static final String CSS = "/assets/console.css";
    public static final String JS = "/assets/console.js";

    /** A WebJar's path names its version: a browser may keep it for a year. */
    private static final String IMMUTABLE = "public, max-age=31536000, immutable";
    /** The console's own files keep their path across releases: a browser asks again each time (a 304 when unchanged). */
    private static final String REVALIDATE = "no-cache";

    private Assets() {}

    /** Where a served path is found on the classpath. */
    static String resource(String path) {
        return path.startsWith("/webjars/") ? "/META-INF/resources" + path : "/dev/ax/console" + path;
    }

    /** Adds one GET route per asset. */
    static void routes(JavalinConfig cfg) {
        for (String path : List.of(HTMX, HTMX_SSE, CSS, JS)) {
            cfg.routes.addHttpHandler(HandlerType.GET, path, Asset.load(path)::serve);
        }
    }

    /** One file: its bytes, read when the routes are added, and the tag a browser revalidates with. */
    private record Asset(String contentType, String cacheControl, byte[] bytes, String etag) {
        static Asset load(String path) {
            try (InputStream in = Assets.class.getResourceAsStream(resource(path))) {
                if (in == null) {
                    throw new IllegalStateException("console asset " + resource(path) + " is not on the classpath");
                }
                byte[] bytes = in.readAllBytes();
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
                return new Asset(
                        path.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8",
                        path.startsWith("/webjars/") ? IMMUTABLE : REVALIDATE,
                        bytes,
                        "\"" + HexFormat.of().formatHex(digest, 0, 12) + "\"");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        void serve(Context ctx) {
            ctx.header("Cache-Control", cacheControl);
            ctx.header("ETag", etag);
            if (etag.equals(ctx.header("If-None-Match"))) {
                ctx.status(HttpStatus.NOT_MODIFIED);
                return;
            }
            ctx.contentType(contentType).result(bytes);
        }
    }
}
