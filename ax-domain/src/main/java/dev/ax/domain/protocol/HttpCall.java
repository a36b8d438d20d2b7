package dev.ax.domain.protocol;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A rendered HTTP action: the executor sends it as given, adding {@code X-AX-Request-ID},
 * {@code X-AX-Instance-ID} and {@code X-AX-Attempt}.
 *
 * @param body  {@code null} for no body
 * @param async the service answers 202 and reports the outcome later to
 *              {@code POST /api/runs/{id}/complete}; the run stays RUNNING until then
 */
public record HttpCall(String method, String url, Map<String, String> headers, String body, boolean async) {
    public HttpCall {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    /** This call with one more header. */
    public HttpCall withHeader(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new HttpCall(method, url, more, body, async);
    }
}
