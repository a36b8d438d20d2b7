package dev.ax.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ax.api.HttpOptions;
import dev.ax.api.TestPki;
import dev.ax.api.TlsIdentity;
import dev.ax.executor.ExecutorChannel.ChannelException;
import dev.ax.executor.TlsTrust;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.TestDatabases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A worker and a client of a server that speaks HTTPS with a certificate of a private CA. */
class AxWorkerHttpsTest {
    @TempDir
    Path dir;

    @Test
    void a_worker_trusting_the_ca_runs_handlers_over_https_and_one_without_it_fails_to_start_saying_why() {
        TestPki pki = new TestPki();
        TestPki.Issued issued = pki.server("EC", "localhost", "127.0.0.1");
        Path ca = pki.writeCa(dir.resolve("ca.pem"));
        TlsIdentity tls = TlsIdentity.load(
                pki.writeChain(dir.resolve("chain.pem"), issued),
                TestPki.writeKey(dir.resolve("key.pem"), issued.key(), TestPki.KeyFormat.PKCS8));
        ServerConfig config = new ServerConfig(
                        0,
                        dir.resolve("data"),
                        TestDatabases.h2(),
                        List.of(),
                        TestAx.ADMIN_TOKEN,
                        "node-1",
                        SchedulerConfig.DEFAULT,
                        Duration.ZERO)
                .withHttp(HttpOptions.DEFAULT.withTls(tls));
        try (AxServer server = AxServer.start(config)) {
            server.store().tx(tx -> {
                server.store().tokens().add(tx, "sdk-worker", TestAx.EXECUTOR_TOKEN, "executor", "test");
                return null;
            });
            assertThat(server.url().getScheme()).isEqualTo("https");
            AxClient client = new AxClient(server.url(), TestAx.ADMIN_TOKEN, TlsTrust.trusting(ca));
            client.apply("""
                    {"taskName":"secure","trigger":{"type":"event"},"action":{"type":"sdk","handler":"hello","group":"orders"}}""");

            AxWorkerBuilder untrusting = AxWorker.builder()
                    .server(server.url())
                    .token(TestAx.EXECUTOR_TOKEN)
                    .group("orders")
                    .handler("hello", ctx -> "hi");
            assertThatThrownBy(() -> untrusting.build().start())
                    .isInstanceOf(ChannelException.class)
                    .hasMessageContaining(
                            "TLS handshake failed: the server's certificate is not signed by a CA this client trusts");

            try (AxWorker worker = AxWorker.builder()
                    .server(server.url())
                    .token(TestAx.EXECUTOR_TOKEN)
                    .group("orders")
                    .trustedCa(ca)
                    .pollWait(Duration.ofSeconds(1))
                    .shutdownGrace(Duration.ofSeconds(2))
                    .handler("hello", ctx -> {
                        ctx.log("over tls");
                        return "hi";
                    })
                    .build()
                    .start()) {
                long id = client.trigger("secure", Map.of());
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> client.instance(id).path("state").asText().equals("SUCCESS"));
                assertThat(client.instance(id).path("message").asText()).isEqualTo("hi");
                assertThat(client.log(id)).isEqualTo("over tls\n");
                assertThat(worker.errorCount()).isZero();
            }
        }
    }
}
