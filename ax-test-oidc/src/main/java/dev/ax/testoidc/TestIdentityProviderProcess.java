package dev.ax.testoidc;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link TestIdentityProvider} running in a child JVM, for tests: a real OpenID Connect provider (Spring
 * Authorization Server) with the given clients and users, on a free port of 127.0.0.1.
 *
 * <p>Plain Java on purpose: a test of another module starts and stops it without any Spring type, and the provider's
 * Spring, Tomcat and Jackson 3 never run in the test's own JVM beside AX's Jetty, Javalin and Jackson 2. The child JVM
 * is this JVM's java, on the part of this JVM's class path that is the provider's (see {@link #providerClassPath()}).
 *
 * <pre>{@code
 * try (var idp = TestIdentityProviderProcess.start(tempDir,
 *         List.of(new Client("ax", "s3cret", List.of("http://127.0.0.1:7070/login/sso/callback"), true)),
 *         List.of(new User("alice", "pw-alice", List.of("data-eng"), "alice@example.com")))) {
 *     String issuer = idp.issuer(); // http://127.0.0.1:PORT, discovery at issuer + "/.well-known/openid-configuration"
 * }
 * }</pre>
 */
public final class TestIdentityProviderProcess implements AutoCloseable {

    /** How long {@link #start} waits for the provider's discovery document. */
    public static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private static final Duration POLL_INTERVAL = Duration.ofMillis(100);
    private static final int LOG_TAIL_LINES = 60;
    private static final int START_ATTEMPTS = 3;

    /**
     * A client (relying party). It authenticates with {@code client_secret_basic} or {@code client_secret_post}, uses
     * the authorization code grant with scopes {@code openid profile email}, and is never asked for consent.
     *
     * @param redirectUris the exact redirect URIs the client may use
     * @param requirePkce  whether an authorization request must carry a {@code code_challenge} (S256)
     */
    public record Client(String clientId, String clientSecret, List<String> redirectUris, boolean requirePkce) {
        public Client {
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(clientSecret, "clientSecret");
            redirectUris = List.copyOf(redirectUris);
        }
    }

    /**
     * A user who signs in on the provider's login form. Their ID token carries {@code preferred_username} (the
     * username), {@code email} and {@code groups}.
     *
     * @param email may be null: then the ID token has no {@code email} claim
     */
    public record User(String username, String password, List<String> groups, String email) {
        public User {
            Objects.requireNonNull(username, "username");
            Objects.requireNonNull(password, "password");
            groups = List.copyOf(groups);
        }
    }

    private final Process process;
    private final String issuer;
    private final int port;
    private final Path logFile;
    private final Thread shutdownHook;

    private TestIdentityProviderProcess(Process process, int port, Path logFile) {
        this.process = process;
        this.port = port;
        this.issuer = "http://127.0.0.1:" + port;
        this.logFile = logFile;
        this.shutdownHook = new Thread(this::destroy, "ax-test-oidc-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts a provider with these clients and users on a free port and returns once its discovery document answers.
     * Its configuration ({@code oidc-provider.json}) and its output ({@code oidc-provider.log}) are written into
     * {@code workDir}.
     *
     * @throws IllegalStateException if the provider exits or does not answer within {@link #START_TIMEOUT}; the
     *                               message carries the end of its log
     */
    public static TestIdentityProviderProcess start(Path workDir, List<Client> clients, List<User> users) {
        try {
            Files.createDirectories(workDir);
            IllegalStateException lastFailure = null;
            for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
                try {
                    return startOnce(workDir, clients, users);
                } catch (PortTakenException e) {
                    // The free port picked was taken by someone else before the provider bound it: pick another.
                    lastFailure = e;
                }
            }
            throw lastFailure;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static TestIdentityProviderProcess startOnce(Path workDir, List<Client> clients, List<User> users)
            throws IOException {
        int port = freePort();
        String issuer = "http://127.0.0.1:" + port;
        Path config = workDir.resolve("oidc-provider.json");
        Files.writeString(config, configJson(port, issuer, clients, users), StandardCharsets.UTF_8);
        Path logFile = workDir.resolve("oidc-provider.log");

        // The class path goes in an argument file: a test class path can be longer than one argument may be.
        Path argFile = workDir.resolve("oidc-provider.args");
        List<String> jvmArgs = List.of(
                "-cp",
                providerClassPath(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Djava.awt.headless=true",
                TestIdentityProvider.class.getName(),
                config.toAbsolutePath().toString());
        Files.writeString(argFile, argFileText(jvmArgs), StandardCharsets.UTF_8);

        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Process process = new ProcessBuilder(java, "@" + argFile.toAbsolutePath())
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(nullFile()))
                .start();
        TestIdentityProviderProcess provider = new TestIdentityProviderProcess(process, port, logFile);
        try {
            provider.awaitDiscovery();
            return provider;
        } catch (RuntimeException | Error e) {
            provider.close();
            throw e;
        }
    }

    /** The issuer, e.g. {@code http://127.0.0.1:PORT}: the ID tokens' {@code iss}, and the base of every endpoint. */
    public String issuer() {
        return issuer;
    }

    /** The port on 127.0.0.1 the provider listens on. */
    public int port() {
        return port;
    }

    /** The provider's output: standard output and error of the child JVM. */
    public Path logFile() {
        return logFile;
    }

    /** Stops the provider: its process and any it started, waiting until they are gone. */
    @Override
    public void close() {
        destroy();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook is running or has run: nothing left to undo
        }
    }

    private void destroy() {
        List<ProcessHandle> tree = new ArrayList<>();
        process.descendants().forEach(tree::add);
        tree.add(process.toHandle());
        tree.forEach(ProcessHandle::destroy);
        for (ProcessHandle handle : tree) {
            try {
                handle.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception notYet) {
                handle.destroyForcibly();
            }
        }
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitDiscovery() {
        URI discovery = URI.create(issuer + "/.well-known/openid-configuration");
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        try (HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            HttpRequest request = HttpRequest.newBuilder(discovery)
                    .timeout(Duration.ofSeconds(5))
                    .GET()
                    .build();
            while (true) {
                if (!process.isAlive()) {
                    String tail = logTail();
                    String message = "the OpenID provider exited with " + process.exitValue() + " before " + discovery
                            + " answered; end of " + logFile + ":\n" + tail;
                    throw tail.contains("already in use")
                            ? new PortTakenException(message)
                            : new IllegalStateException(message);
                }
                try {
                    if (http.send(request, HttpResponse.BodyHandlers.discarding())
                                    .statusCode()
                            == 200) {
                        return;
                    }
                } catch (IOException notListeningYet) {
                    // the child JVM is still starting
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the OpenID provider did not answer " + discovery + " within "
                            + START_TIMEOUT.toSeconds() + " s; end of " + logFile + ":\n" + logTail());
                }
                process.waitFor(POLL_INTERVAL.toMillis(), TimeUnit.MILLISECONDS); // an exit is told above
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the OpenID provider", e);
        }
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            int tailStart = Math.max(0, lines.size() - LOG_TAIL_LINES);
            // A stack trace can fill the tail: name the causes and Spring Boot's failure report from before it too.
            List<String> causes = lines.subList(0, tailStart).stream()
                    .filter(line -> line.startsWith("Caused by:")
                            || line.startsWith("Description:")
                            || line.contains(" ERROR "))
                    .distinct()
                    .limit(20)
                    .toList();
            String tail = String.join("\n", lines.subList(tailStart, lines.size()));
            return causes.isEmpty() ? tail : String.join("\n", causes) + "\n...\n" + tail;
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read the log: " + e + ")";
        }
    }

    /**
     * The child JVM's class path: this module and its own run-time dependencies, taken from this JVM's class path (so
     * at the versions the calling test resolved), and nothing else of it. The whole class path of, say, an AX console
     * test would also give the provider AX's Jetty and its Servlet 6.0 API, which Tomcat 11 cannot run on. Should one
     * of the provider's dependencies not be found, the rest of this JVM's class path follows them, as a fallback.
     */
    static String providerClassPath() {
        List<String> entries = List.of(System.getProperty("java.class.path").split(File.pathSeparator));
        Set<String> chosen = new LinkedHashSet<>();
        chosen.add(ownLocation());
        List<String> missing = new ArrayList<>();
        for (String artifactId : providerArtifactIds()) {
            Pattern jarName = Pattern.compile(Pattern.quote(artifactId) + "-\\d.*\\.jar");
            List<String> found = entries.stream()
                    .filter(entry -> jarName.matcher(
                                    Path.of(entry).getFileName().toString())
                            .matches())
                    .toList();
            if (found.isEmpty()) {
                missing.add(artifactId);
            }
            chosen.addAll(found);
        }
        if (!missing.isEmpty()) {
            System.err.println("ax-test-oidc: " + missing + " not found on the class path by name;"
                    + " the OpenID provider gets the whole class path after its own jars");
            chosen.addAll(entries);
        }
        return String.join(File.pathSeparator, chosen);
    }

    private static String ownLocation() {
        try {
            return Path.of(TestIdentityProvider.class
                            .getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The artifact ids in {@code provider-dependencies.txt}, which the build writes with dependency:list. */
    private static List<String> providerArtifactIds() {
        Pattern coordinates = Pattern.compile("^\\s*([^:\\s]+):([^:\\s]+):.*");
        List<String> ids = new ArrayList<>();
        try (InputStream in = TestIdentityProviderProcess.class.getResourceAsStream("provider-dependencies.txt")) {
            if (in == null) {
                throw new IllegalStateException("provider-dependencies.txt is missing from ax-test-oidc's jar");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                Matcher m = coordinates.matcher(line);
                if (m.matches()) {
                    ids.add(m.group(2));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ids;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static File nullFile() {
        return new File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    /** The configuration {@link TestIdentityProvider} reads; written by hand so this class needs no JSON library. */
    static String configJson(int port, String issuer, List<Client> clients, List<User> users) {
        StringBuilder json = new StringBuilder();
        json.append("{\n  \"port\": ")
                .append(port)
                .append(",\n  \"issuer\": ")
                .append(quote(issuer))
                .append(",\n  \"parentPid\": ")
                .append(ProcessHandle.current().pid())
                .append(",\n  \"clients\": [");
        for (int i = 0; i < clients.size(); i++) {
            Client c = clients.get(i);
            json.append(i == 0 ? "\n" : ",\n")
                    .append("    {\"clientId\": ")
                    .append(quote(c.clientId()))
                    .append(", \"clientSecret\": ")
                    .append(quote(c.clientSecret()))
                    .append(", \"redirectUris\": ")
                    .append(array(c.redirectUris()))
                    .append(", \"requirePkce\": ")
                    .append(c.requirePkce())
                    .append('}');
        }
        json.append("\n  ],\n  \"users\": [");
        for (int i = 0; i < users.size(); i++) {
            User u = users.get(i);
            json.append(i == 0 ? "\n" : ",\n")
                    .append("    {\"username\": ")
                    .append(quote(u.username()))
                    .append(", \"password\": ")
                    .append(quote(u.password()))
                    .append(", \"groups\": ")
                    .append(array(u.groups()))
                    .append(", \"email\": ")
                    .append(u.email() == null ? "null" : quote(u.email()))
                    .append('}');
        }
        return json.append("\n  ]\n}\n").toString();
    }

    private static String array(List<String> values) {
        List<String> quoted =
                values.stream().map(TestIdentityProviderProcess::quote).toList();
        return "[" + String.join(", ", quoted) + "]";
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        out.append(String.format("\\u%04x", (int) ch));
                    } else {
                        out.append(ch);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /** A java argument file: each argument quoted, backslashes and quotes escaped. */
    private static String argFileText(List<String> args) {
        StringBuilder text = new StringBuilder();
        for (String arg : args) {
            text.append('"')
                    .append(arg.replace("\\", "\\\\").replace("\"", "\\\""))
                    .append("\"\n");
        }
        return text.toString();
    }

    private static final class PortTakenException extends IllegalStateException {
        PortTakenException(String message) {
            super(message);
        }
    }
}
