package dev.ax.alerts;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/** JSON over HTTP for the webhook and robot channels, with a timeout on everything. */
final class HttpPost {
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** Robots answer a small JSON; anything longer is cut before it lands in an error message. */
    static final int MAX_ANSWER_CHARS = 500;

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .connectTimeout(TIMEOUT)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    private HttpPost() {}

    record Answer(int status, String body) {
        boolean is2xx() {
            return status / 100 == 2;
        }
    }

    static Answer json(String url, Map<String, String> headers, String body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .timeout(TIMEOUT)
                .header("Content-Type", "application/json; charset=utf-8")
                .header("User-Agent", "ax-alerts")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        headers.forEach(request::header);
        HttpResponse<String> response =
                CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        String answer = response.body() == null ? "" : response.body();
        return new Answer(
                response.statusCode(),
                answer.length() > MAX_ANSWER_CHARS ? answer.substring(0, MAX_ANSWER_CHARS) + "…" : answer);
    }
}
