package dev.ax.cli;

import dev.ax.executor.TlsTrust;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The options every client command shares: which server, which token, whom to trust for HTTPS, and raw JSON output. */
public final class ClientOptions {
    public static final String DEFAULT_SERVER = "http://127.0.0.1:7070";
    /** Where {@code ax server} (default data dir) writes the admin token, relative to where the command runs. */
    public static final Path DEFAULT_TOKEN_FILE = Path.of("ax-data", "admin.token");

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(
            names = "--server",
            paramLabel = "URL",
            defaultValue = "${env:AX_SERVER:-" + DEFAULT_SERVER + "}",
            description = "The AX server (default: $AX_SERVER, else " + DEFAULT_SERVER + ").")
    String server;

    @Option(
            names = "--token",
            paramLabel = "TOKEN",
            defaultValue = "${env:AX_TOKEN}",
            description = "API token (default: $AX_TOKEN, else the file ./ax-data/admin.token if it exists).")
    String token;

    @Option(
            names = "--ca",
            paramLabel = "FILE",
            defaultValue = "${env:AX_CA}",
            description = "For an https:// server: the CA certificate(s) (PEM) that signed its certificate, trusted "
                    + "instead of the system's CAs (default: $AX_CA; without either, the system's CAs).")
    Path ca;

    @Option(names = "--json", description = "Print the server's JSON answer instead of a table.")
    boolean json;

    public boolean json() {
        return json;
    }

    /** A client for the chosen server; a URL that is not http(s) is a usage error (exit 2). */
    public ApiClient connect() {
        return new ApiClient(serverUri(), resolveToken(), trust(mixee, ca));
    }

    /** Whom to trust for HTTPS: the CAs in {@code ca}, or the system's when it is null; a bad file is a usage error. */
    static SSLContext trust(CommandSpec spec, Path ca) {
        if (ca == null) {
            return null;
        }
        try {
            return TlsTrust.trusting(ca);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--ca " + e.getMessage());
        }
    }

    URI serverUri() {
        try {
            URI uri = URI.create(server.strip());
            if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
                throw new IllegalArgumentException("not an http(s) URL with a host");
            }
            return uri;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(
                    mixee.commandLine(), "--server must be a URL like " + DEFAULT_SERVER + ", was '" + server + "'");
        }
    }

    /** --token, else AX_TOKEN (both through the option), else the token file the local server wrote. */
    String resolveToken() {
        if (token != null && !token.isBlank()) {
            return token.strip();
        }
        if (Files.isRegularFile(DEFAULT_TOKEN_FILE)) {
            try {
                return Files.readString(DEFAULT_TOKEN_FILE, StandardCharsets.UTF_8)
                        .strip();
            } catch (IOException e) {
                throw new CliException(
                        ExitCodes.USAGE,
                        "cannot read the token file " + DEFAULT_TOKEN_FILE.toAbsolutePath() + ": " + e.getMessage());
            }
        }
        return null;
    }
}
