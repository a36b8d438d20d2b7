package dev.ax.server;

import dev.ax.scheduler.WebhookSender;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** Follow-up webhooks over HTTP: a 2xx answer within the timeout counts as delivered. */
final class HttpWebhookSender implements WebhookSender {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** Built on the first webhook: building a client sets up TLS, a tenth of a second of start-up. */
    private static final class Client {
        static final HttpClient INSTANCE =
                HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    }

    @Override
    public Result send(String url, Map<String, String> headers, String jsonBody) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .timeout(TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(jsonBody));
        headers.forEach(request::header);
        try {
            HttpResponse<Void> response = Client.INSTANCE.send(request.build(), HttpResponse.BodyHandlers.discarding());
            int status = response.statusCode();
            return new Result(status / 100 == 2, "HTTP " + status);
        } catch (IOException | IllegalArgumentException e) {
            return new Result(false, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(false, "interrupted");
        }
    }
}
