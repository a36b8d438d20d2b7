package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.ax.alerts.AlertsConfig;
import dev.ax.alerts.ChannelConfig;
import dev.ax.domain.run.Cause;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.store.TestDatabases;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --locale zh-CN}: a node whose default language is Chinese serves its console in Chinese to a browser that asks
 * for no language AX speaks (and in English to one that asks for English), and writes the alerts of a channel that
 * names no language in Chinese.
 */
class LocaleEndToEndTest {
    @TempDir
    Path dir;

    AxServer server;
    HttpServer hook;
    final List<String> received = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (hook != null) {
            hook.stop(0);
        }
    }

    @Test
    void the_servers_language_is_the_consoles_default_and_that_of_alerts_to_channels_that_name_none() throws Exception {
        hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        hook.createContext("/hook", exchange -> {
            received.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        hook.start();
        AlertsConfig alerts = new AlertsConfig(
                Map.of(
                        "hook",
                        new ChannelConfig.Webhook(
                                "http://127.0.0.1:" + hook.getAddress().getPort() + "/hook", Map.of())),
                null,
                null,
                AlertsConfig.DEFAULT_STORM_LIMIT,
                AlertsConfig.Pipeline.DEFAULT.withFirstRetry(Duration.ofMillis(200)),
                null,
                null,
                null);
        server = AxServer.start(new ServerConfig(
                        0,
                        dir,
                        TestDatabases.h2(),
                        List.of("default"),
                        "t",
                        "node-1",
                        SchedulerConfig.DEFAULT,
                        Duration.ZERO,
                        alerts)
                .withLocale(Locale.SIMPLIFIED_CHINESE));

        HttpClient http = HttpClient.newHttpClient();
        URI login = server.url().resolve("/login");
        String noPreference = http.send(HttpRequest.newBuilder(login).build(), HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(noPreference).contains("<html lang=\"zh-CN\">", "登录 AX");
        String french = http.send(
                        HttpRequest.newBuilder(login)
                                .header("Accept-Language", "fr-FR,fr;q=0.9")
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(french).contains("登录 AX");
        String english = http.send(
                        HttpRequest.newBuilder(login)
                                .header("Accept-Language", "en-US,en;q=0.9")
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(english).contains("<html lang=\"en\">", "Log in to AX");

        server.node()
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "daily_report",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "echo 'boom' >&2; exit 3"),
                                "policy",
                                Map.of("notifyOnFailure", List.of("hook"))),
                        "test");
        long id = server.node().tasks().trigger("daily_report", Map.of(), Cause.MANUAL, "alice");
        await().atMost(Duration.ofSeconds(30)).until(() -> !received.isEmpty());
        assertThat(received.getFirst())
                .contains("\"title\":\"daily_report #" + id + " 执行失败：退出码 3\"", "\"language\":\"zh-CN\"");
    }
}
