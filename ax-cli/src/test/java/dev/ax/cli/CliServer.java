package dev.ax.cli;

import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.TestDatabases;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real AX server (embedded H2, in-process executor) for the CLI to talk to, and {@link #ax} to
 * run the CLI against it with the admin token. Registered as a static field it serves the whole
 * class; as a run field, each test gets its own server.
 */
final class CliServer implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    private final String nodeId;
    private Path dir;
    private AxServer server;
    private boolean perClass;

    CliServer(String nodeId) {
        this.nodeId = nodeId;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        perClass = true;
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stop();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        if (!perClass) {
            start();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!perClass) {
            stop();
        }
    }

    private void start() throws IOException {
        dir = Files.createTempDirectory("ax-cli-test");
        server = AxServer.start(new ServerConfig(
                0, dir.resolve("data"), TestDatabases.h2(), List.of("default"), null, nodeId, null, Duration.ZERO));
    }

    private void stop() {
        if (server != null) {
            server.close();
            server = null;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    AxServer server() {
        return server;
    }

    /** A folder for the test's files, removed with the server. */
    Path dir() {
        return dir;
    }

    /** Runs ax with this server and its admin token. */
    Cli.Result ax(String... args) {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.add("--server=" + server.url());
        all.add("--token=" + server.adminToken());
        return Cli.run(all.toArray(String[]::new));
    }

    Path file(String name, String content) {
        try {
            return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
