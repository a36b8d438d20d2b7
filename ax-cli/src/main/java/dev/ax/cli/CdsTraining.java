package dev.ax.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * The training run behind the client commands' class data sharing archive: the launch script runs it once per jar
 * with {@code -XX:ArchiveClassesAtExit} (in the background), so that every later {@code ax task list} maps the
 * classes a client command needs, parsed and verified, instead of reading them from the jar. Which command runs
 * first must not decide what the archive holds (an archive written by {@code ax --version} lacks the HTTP client and
 * JSON), so this runs the common client commands against a throw-away local HTTP server answering canned JSON, with
 * their output discarded. It changes nothing anywhere.
 */
public final class CdsTraining {
    private static final String TASKS = """
            {"items":[{"id":1,"name":"nightly-report","version":3,"state":"ACTIVE","group":"default",
            "trigger":{"type":"cron","cron":"0 2 * * *","timezone":"UTC"},"nextFireAt":"2026-01-01T02:00:00Z",
            "createdAt":"2025-12-01T00:00:00Z","params":{"day":"2025-12-31"}}],"next":"2"}""";

    private static final List<List<String>> COMMANDS = List.of(
            List.of("task", "list"),
            List.of("task", "show", "nightly-report"),
            List.of("run", "list", "--task", "nightly-report"),
            List.of("run", "show", "1"),
            List.of("trigger", "nightly-report", "--param", "day=2025-12-31"),
            List.of("task", "list", "--json"),
            List.of("cron", "next", "0 2 * * *"),
            List.of("--help"));

    private CdsTraining() {}

    public static void main(String[] args) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = TASKS.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort();
            for (List<String> command : COMMANDS) {
                List<String> line = new ArrayList<>(command);
                if (!command.getFirst().startsWith("-")) {
                    line.addAll(List.of("--server", url, "--token", "training"));
                }
                String[] argv = line.toArray(String[]::new);
                CommandLine cmd = Main.commandLine(Map.of(), argv);
                cmd.setOut(new PrintWriter(Writer.nullWriter()));
                cmd.setErr(new PrintWriter(Writer.nullWriter()));
                cmd.execute(argv);
            }
        } finally {
            server.stop(0);
        }
    }
}
