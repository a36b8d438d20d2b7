package dev.ax.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.api.ApiServer;
import dev.ax.api.HttpOptions;
import dev.ax.api.Observability;
import dev.ax.domain.time.SettableClock;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.scheduler.SchedulerNode;
import dev.ax.store.Store;
import dev.ax.store.TestDatabases;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Console log-ins throttled per client address, over real HTTP, on a node whose clock the test moves: the
 * five-minute window passes without anyone waiting for it.
 */
class LoginThrottleTest {
    static final String ADMIN = "admin-token";
    static final String VIEWER = "viewer-token";

    final SettableClock clock = new SettableClock(Instant.parse("2026-03-01T10:00:00Z"));
    final HttpClient http = HttpClient.newHttpClient();
    Store store;
    SchedulerNode node;
    ApiServer server;

    /** A node that is never started: its loops would only sleep on a clock that does not move by itself. */
    void start(HttpOptions options) {
        store = Store.open(TestDatabases.h2());
        store.tx(tx -> {
            store.tokens().add(tx, "admin", ADMIN, "admin", "test");
            store.tokens().add(tx, "vera", VIEWER, "viewer", "test");
            return null;
        });
        node = new SchedulerNode("throttle-test", store, clock, SchedulerConfig.DEFAULT);
        server = ApiServer.start(node, "127.0.0.1", 0, options, Observability.NONE, Console.routes(node));
    }

    @AfterEach
    void stop() {
        server.close();
        store.close();
    }

    HttpResponse<String> login(String token, String... forwardedFor) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + token + "&next=/tasks"));
        for (String address : forwardedFor) {
            request.header("X-Forwarded-For", address);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    void failTimes(int n, String... forwardedFor) throws Exception {
        for (int i = 0; i < n; i++) {
            assertThat(login("wrong-" + i, forwardedFor).statusCode()).isEqualTo(401);
        }
    }

    @Test
    void ten_failures_block_the_address_even_for_a_good_token_until_the_window_has_passed() throws Exception {
        start(HttpOptions.DEFAULT);
        failTimes(10);

        HttpResponse<String> blocked = login(ADMIN);

        assertThat(blocked.statusCode()).isEqualTo(429);
        assertThat(blocked.headers().firstValue("Retry-After")).hasValue("300");
        assertThat(blocked.body())
                .contains("Too many failed log-ins from your address (10 within 5 minutes)")
                // In the server's zone (the tests run in New York's) when the browser has not said its own.
                .contains("Try again after 2026-03-01 05:05:00 GMT-5");
        assertThat(blocked.headers().allValues("Set-Cookie")).noneMatch(c -> c.startsWith(Session.COOKIE + "="));
        assertThat(blocked.headers().firstValue("Content-Security-Policy")).isPresent();

        clock.advance(Duration.ofMinutes(4));
        HttpResponse<String> stillBlocked = login(ADMIN);
        assertThat(stillBlocked.statusCode()).isEqualTo(429);
        assertThat(stillBlocked.headers().firstValue("Retry-After")).hasValue("60");

        clock.advance(Duration.ofMinutes(1));
        HttpResponse<String> allowed = login(ADMIN);
        assertThat(allowed.statusCode()).isEqualTo(303);
        assertThat(allowed.headers().firstValue("Location")).hasValue("/tasks");
    }

    @Test
    void the_window_slides_so_failures_spread_over_more_than_five_minutes_never_block() throws Exception {
        start(HttpOptions.DEFAULT);
        for (int i = 0; i < 30; i++) {
            failTimes(1);
            clock.advance(Duration.ofSeconds(31)); // ten failures span more than 5 minutes
        }
        assertThat(login(ADMIN).statusCode()).isEqualTo(303);
    }

    @Test
    void successes_do_not_count_and_do_not_clear_the_failures() throws Exception {
        start(HttpOptions.DEFAULT);
        failTimes(9);
        for (int i = 0; i < 5; i++) {
            assertThat(login(VIEWER).statusCode()).isEqualTo(303);
        }
        failTimes(1);

        assertThat(login(VIEWER).statusCode()).isEqualTo(429);
    }

    @Test
    void without_a_trusted_proxy_a_forged_x_forwarded_for_changes_nothing() throws Exception {
        start(HttpOptions.DEFAULT);
        for (int i = 0; i < 10; i++) {
            failTimes(1, "203.0.113." + i);
        }

        assertThat(login(ADMIN, "198.51.100.77").statusCode()).isEqualTo(429);
    }

    @Test
    void behind_a_trusted_proxy_each_forwarded_client_counts_on_its_own() throws Exception {
        start(HttpOptions.DEFAULT.withTrustedProxies(List.of("127.0.0.1")));
        failTimes(10, "203.0.113.5");

        assertThat(login(ADMIN, "203.0.113.5").statusCode()).isEqualTo(429);
        // An entry left of the one the trusted proxy wrote could be forged: it is not the client.
        assertThat(login(ADMIN, "198.51.100.1, 203.0.113.5").statusCode()).isEqualTo(429);
        assertThat(login(ADMIN, "203.0.113.6").statusCode()).isEqualTo(303);
        // A request from the proxy itself, naming no client, is the proxy's own.
        assertThat(login(ADMIN).statusCode()).isEqualTo(303);
    }
}
