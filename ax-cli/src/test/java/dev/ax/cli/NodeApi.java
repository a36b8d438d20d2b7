package dev.ax.cli;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A server node started as a process, called over plain HTTP on 127.0.0.1 with one token: the process tests' view. */
record NodeApi(HttpClient http, int port, String token) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A POST with {@code json} as its body (none when empty). */
    HttpResponse<String> post(String path, String json) throws Exception {
        HttpRequest.Builder request = request(path).POST(HttpRequest.BodyPublishers.ofString(json));
        if (!json.isEmpty()) {
            request.header("Content-Type", "application/json");
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    JsonNode get(String path) throws Exception {
        return JSON.readTree(http.send(request(path).build(), HttpResponse.BodyHandlers.ofString())
                .body());
    }

    /** Until {@code /healthz} answers 200, up to a minute (a JVM start on a busy box). */
    void awaitHealthy() {
        await().atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(() -> http.send(request("/healthz").build(), HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 200);
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + token);
    }
}
