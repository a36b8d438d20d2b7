package dev.ax.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Real HTTP against a running server, for tests. */
public final class ApiClient {
    private static final ObjectMapper JSON = Json.mapper();
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final URI base;
    private final String token;

    public ApiClient(URI base, String token) {
        this.base = base;
        this.token = token;
    }

    public ApiClient as(String otherToken) {
        return new ApiClient(base, otherToken);
    }

    public record Response(int status, String body, String contentType) {
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON (" + status + "): " + body, e);
            }
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    public Response get(String path) {
        return send("GET", path, null, "application/json");
    }

    public Response getText(String path) {
        return send("GET", path, null, "text/plain");
    }

    public Response post(String path, String body) {
        return send("POST", path, body, "application/json");
    }

    public Response post(String path, Object body) {
        return post(path, write(body));
    }

    /** A POST with extra headers (an {@code Idempotency-Key}, say). */
    public Response post(String path, String body, Map<String, String> headers) {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(request("POST", path, body, "application/json"), (name, value) -> true);
        headers.forEach(b::header);
        return send(b.build());
    }

    public Response put(String path, String body) {
        return send("PUT", path, body, "application/json");
    }

    public Response delete(String path) {
        return send("DELETE", path, null, "application/json");
    }

    /** Sent at once; the answer arrives later (for many concurrent long-polls). */
    public CompletableFuture<Response> postAsync(String path, Object body) {
        return http.sendAsync(
                        request("POST", path, write(body), "application/json"), HttpResponse.BodyHandlers.ofString())
                .thenApply(r -> new Response(
                        r.statusCode(),
                        r.body(),
                        r.headers().firstValue("Content-Type").orElse("")));
    }

    private Response send(String method, String path, String body, String accept) {
        return send(request(method, path, body, accept));
    }

    private Response send(HttpRequest request) {
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new Response(
                    r.statusCode(),
                    r.body(),
                    r.headers().firstValue("Content-Type").orElse(""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private HttpRequest request(String method, String path, String body, String accept) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(70))
                .header("Accept", accept)
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b.build();
    }

    public static String write(Object body) {
        try {
            return JSON.writeValueAsString(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
