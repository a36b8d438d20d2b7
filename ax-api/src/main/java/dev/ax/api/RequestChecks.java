package dev.ax.api;

import dev.ax.domain.task.ValidationException;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;

/**
 * What every request passes before any route sees it, API and console alike: the body size limit and a
 * body charset the JVM knows; and the header every response carries.
 *
 * <p>Javalin enforces {@code maxRequestSize} only when a handler reads the body, and answers in a shape of
 * its own. Here a declared {@code Content-Length} over the limit is refused at once, without reading a byte,
 * and a chunked body (no length) is read up to the limit and refused there. Either way no handler runs,
 * so nothing is written, and the answer is {@link ErrorMapper}'s JSON.
 */
final class RequestChecks {
    static final String NOSNIFF = "nosniff";
    /** How much of a refused body is read (and dropped) so that its sender sees the refusal. */
    static final long MAX_DRAINED_BYTES = 16L * 1024 * 1024;

    private final long maxBytes;

    RequestChecks(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** Browsers must take every answer as the type it says it is, never guess one (a JSON error as HTML, say). */
    static void headers(Context ctx) {
        ctx.header("X-Content-Type-Options", NOSNIFF);
    }

    void body(Context ctx) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > maxBytes) {
            throw tooLarge(ctx);
        }
        boolean chunked = declared < 0 && ctx.header("Transfer-Encoding") != null;
        if (declared > 0 || chunked) {
            charset(ctx);
            // Read now, whatever the handler does with it. A handler that answers without reading (a 404, a 401, a
            // route that takes no body) would leave bytes unread; Jetty then closes the connection after an answer
            // already sent as keep-alive, and a client that reuses it finds it dead ("header parser received no
            // bytes"). Javalin keeps the bytes for the handler; a chunked body stops one buffer past the limit.
            try {
                ctx.bodyAsBytes();
            } catch (HttpResponseException e) {
                throw translate(e, ctx);
            }
        }
    }

    /** Javalin's own 413 (a body read past the limit) becomes ours, which says the limit. */
    RuntimeException translate(HttpResponseException e, Context ctx) {
        return e.getStatus() == HttpStatus.CONTENT_TOO_LARGE.getCode() ? tooLarge(ctx) : e;
    }

    private ApiException tooLarge(Context ctx) {
        drain(ctx);
        // Whatever is left of the body is not read: the connection cannot carry another request after it.
        ctx.header("Connection", "close");
        return new ApiException(
                413,
                "request body larger than the server's limit of " + maxBytes + " bytes (" + inUnits(maxBytes)
                        + "set by --max-request-size)");
    }

    /**
     * Reads and drops the rest of the body, up to {@link #MAX_DRAINED_BYTES}. A client writes its whole body
     * before it reads the answer; closing the connection while bytes are still coming in makes the kernel reset
     * it, and the client would see "connection reset" instead of the 413. Nothing is kept, so this costs
     * bandwidth, not memory; past the cap the connection is closed all the same.
     */
    private static void drain(Context ctx) {
        if ("100-continue".equalsIgnoreCase(ctx.header("Expect"))) {
            return; // the client waits to be told to send; reading would tell it, so the 413 goes first and alone
        }
        try {
            InputStream in = ctx.req().getInputStream();
            byte[] buffer = new byte[64 * 1024];
            long left = MAX_DRAINED_BYTES;
            for (int n = 0; n != -1 && left > 0; n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) {
                left -= n;
            }
        } catch (IOException | IllegalStateException e) {
            // The client gave up, or the body was taken as a stream already: nothing left to be polite about.
        }
    }

    /** An unknown charset would fail decoding the body in the handler, as a 500. */
    private static void charset(Context ctx) {
        String name = ctx.req().getCharacterEncoding();
        if (name == null) {
            return;
        }
        boolean known;
        try {
            known = Charset.isSupported(name);
        } catch (IllegalCharsetNameException e) {
            known = false;
        }
        if (!known) {
            throw new ValidationException("Content-Type", "unknown charset '" + name + "'; send UTF-8");
        }
    }

    /** "1 MiB, " or "256 KiB, " when the limit is a round number of them; nothing otherwise. */
    private static String inUnits(long bytes) {
        if (bytes % (1024 * 1024) == 0) {
            return bytes / (1024 * 1024) + " MiB, ";
        }
        return bytes % 1024 == 0 ? bytes / 1024 + " KiB, " : "";
    }
}
