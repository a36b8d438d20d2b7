package dev.ax.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release archive as an operator gets it: unpacked into an empty folder, with no Maven and no sources, its
 * {@code bin/ax} starts a server node and an executor on another group, and a run goes from one to the other.
 */
class ReleaseArchiveIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    final List<Process> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (Process p : started) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void an_unpacked_release_starts_a_server_and_an_executor_that_runs_its_work() throws Exception {
        Path home = unpack();
        for (String file : List.of(
                "bin/ax",
                "lib/ax.jar",
                "lib/ax-launch.sh",
                "conf/ax.conf",
                "conf/executor.conf",
                "conf/jvm.options",
                "systemd/ax-server.service",
                "systemd/ax-executor.service",
                "README.md",
                "LICENSE",
                "docs/architecture.md",
                "sdk/python/pyproject.toml",
                "sdk/python/src/ax_sdk/worker.py")) {
            assertThat(home.resolve(file)).as(file).isRegularFile();
        }
        assertThat(Files.isExecutable(home.resolve("bin/ax"))).isTrue();

        Result version = run(home, List.of("--version"), Map.of());
        assertThat(version.code()).as(version.out()).isZero();
        assertThat(version.out()).startsWith("ax " + System.getProperty("ax.version") + " (commit " + commit() + ")");

        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path work = Files.createDirectories(dir.resolve("work"));
        Files.writeString(work.resolve("conf-server"), "data-dir = node-data\nexecutor-groups = local\n");
        Process server = start(
                home, work, List.of("server", "--port", "" + port, "--config", "conf-server"), Map.of(), "server.log");
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> healthy(url) || !server.isAlive());
        assertThat(server.isAlive()).as(log(work, "server.log")).isTrue();
        String admin = Files.readString(work.resolve("node-data/admin.token")).strip();

        JsonNode token = call(
                url,
                admin,
                "POST",
                "/api/tokens",
                Map.of("name", "release-exec", "role", "executor", "groups", List.of("remote")));
        Process executor = start(
                home,
                work,
                List.of("executor", "--group", "remote", "--id", "release-exec"),
                Map.of("AX_SERVER", url, "AX_TOKEN", token.get("token").asText()),
                "executor.log");
        call(
                url,
                admin,
                "POST",
                "/api/tasks",
                Map.of(
                        "taskName",
                        "from_release",
                        "trigger",
                        Map.of("type", "event"),
                        "action",
                        Map.of("type", "shell", "command", "echo ran by the release", "group", "remote")));
        long run = call(url, admin, "POST", "/api/tasks/from_release/trigger", Map.of())
                .get("instanceId")
                .asLong();
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () -> call(url, admin, "GET", "/api/runs/" + run, null)
                                .get("state")
                                .asText(),
                        s -> s.equals("SUCCESS") || s.equals("FAILED"));
        JsonNode done = call(url, admin, "GET", "/api/runs/" + run, null);
        assertThat(done.get("state").asText()).as(log(work, "executor.log")).isEqualTo("SUCCESS");
        assertThat(done.get("executorId").asText()).isEqualTo("release-exec");

        // A client command, then again once the clients' class data sharing archive is written (in the background,
        // by the first client command: --version above): the same answer either way.
        Map<String, String> client = Map.of("AX_SERVER", url, "AX_TOKEN", admin);
        Result listed = run(home, List.of("task", "list"), client);
        assertThat(listed.code()).as(listed.out()).isZero();
        assertThat(listed.out()).contains("from_release");
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> clientArchiveDone(home.resolve("var")));
        Result mapped = run(home, List.of("task", "list"), client);
        assertThat(mapped).isEqualTo(listed);

        // SIGTERM: both drain and exit 0.
        executor.destroy();
        server.destroy();
        assertThat(executor.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(executor.exitValue()).as(log(work, "executor.log")).isZero();
        assertThat(server.exitValue()).as(log(work, "server.log")).isZero();
    }

    /** The clients' archive is in {@code var}, and no training run is still writing one. */
    static boolean clientArchiveDone(Path var) throws IOException {
        try (var files = Files.list(var)) {
            List<String> names = files.map(f -> f.getFileName().toString()).toList();
            return names.stream().anyMatch(n -> n.matches("ax-cli-\\d+\\.jsa"))
                    && names.stream().noneMatch(n -> n.endsWith(".training") || n.endsWith(".tmp"));
        }
    }

    Path unpack() throws Exception {
        Path archive = Path.of(System.getProperty("ax.archive"));
        assertThat(archive).isRegularFile();
        Process tar = new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", dir.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(tar.waitFor()).as(out).isZero();
        return dir.resolve("ax-" + System.getProperty("ax.version"));
    }

    /** The commit the build was made from, as bin/ax --version should name it. */
    static String commit() throws Exception {
        Process git = new ProcessBuilder(
                        "git", "-C", System.getProperty("ax.checkout"), "rev-parse", "--short=10", "HEAD")
                .redirectErrorStream(true)
                .start();
        String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        return git.waitFor() == 0 ? out : "unknown";
    }

    record Result(int code, String out) {}

    Result run(Path home, List<String> args, Map<String, String> env) throws Exception {
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/ax").toString()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        environment(pb, env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), out);
    }

    Process start(Path home, Path work, List<String> args, Map<String, String> env, String logName) throws IOException {
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/ax").toString()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(work.toFile())
                .redirectErrorStream(true)
                .redirectOutput(work.resolve(logName).toFile());
        environment(pb, env);
        Process p = pb.start();
        started.add(p);
        return p;
    }

    /** A JDK 21+ the way an operator's machine has one: JAVA_HOME (this test's own JVM). */
    static void environment(ProcessBuilder pb, Map<String, String> env) {
        pb.environment().keySet().removeIf(k -> k.startsWith("AX_"));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().putAll(env);
    }

    static boolean healthy(String url) {
        try {
            return HTTP.send(
                                    HttpRequest.newBuilder(URI.create(url + "/healthz"))
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding())
                            .statusCode()
                    == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static JsonNode call(String url, String token, String method, String path, Object body) throws Exception {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url + path))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json");
        req.method(
                method,
                body == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
        HttpResponse<String> res = HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).as(method + " " + path + ": " + res.body()).isBetween(200, 299);
        return JSON.readTree(res.body());
    }

    static String log(Path work, String name) {
        try {
            return Files.readString(work.resolve(name));
        } catch (IOException e) {
            return "(no " + name + ")";
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
