package dev.ax.server;

import dev.ax.scheduler.Tokens;
import dev.ax.store.Store;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first admin token, so that a fresh install can be used at once. A token given in the
 * configuration or in {@code AX_ADMIN_TOKEN} is registered (idempotently); otherwise, on a
 * database with no token at all, one is generated and written to {@code <dataDir>/admin.token}
 * readable by the owner only. Only its hash goes to the database.
 */
final class AdminToken {
    static final String ENV = "AX_ADMIN_TOKEN";
    static final String FILE_NAME = "admin.token";
    static final String NAME = "admin";
    private static final int TOKEN_BYTES = 32;
    private static final Logger log = LoggerFactory.getLogger(AdminToken.class);

    /**
     * @param token the admin token when this node knows it, else null
     * @param file  the file holding it, when there is one
     * @param source where it is, for the start-up log line ("admin token in /var/ax/admin.token")
     */
    record Bootstrap(String token, Path file, String source) {}

    private AdminToken() {}

    static Bootstrap ensure(Store store, Path dataDir, String configured) {
        Path file = dataDir.resolve(FILE_NAME);
        if (configured != null && !configured.isBlank()) {
            register(store, configured);
            return new Bootstrap(configured, null, "admin token from the configuration");
        }
        String env = System.getenv(ENV);
        if (env != null && !env.isBlank()) {
            register(store, env.strip());
            return new Bootstrap(env.strip(), null, "admin token from " + ENV);
        }
        if (store.tx(tx -> store.tokens().count(tx)) == 0) {
            // File first: if the insert then fails, the next start simply makes a new one.
            String token = newToken();
            write(file, token);
            store.tx(tx -> {
                store.tokens().add(tx, NAME, token, "admin", "server");
                return null;
            });
            log.info("admin token written to {}", file.toAbsolutePath());
            return new Bootstrap(token, file, "admin token in " + file.toAbsolutePath());
        }
        if (Files.isReadable(file)) {
            try {
                String token = Files.readString(file, StandardCharsets.UTF_8).strip();
                return new Bootstrap(token.isEmpty() ? null : token, file, "admin token in " + file.toAbsolutePath());
            } catch (IOException e) {
                log.warn("cannot read {}: {}", file, e.getMessage());
            }
        }
        return new Bootstrap(null, null, "admin token not stored on this node (tokens exist in the database)");
    }

    /**
     * Adds the token unless it is there already; a concurrent start of another node adding it too is fine. The token
     * named {@code admin} is the configured one: when the configuration names another, the stored one is replaced
     * (the old value stops working), as one name is one token.
     */
    private static void register(Store store, String token) {
        try {
            store.tx(tx -> {
                if (store.tokens().find(tx, token).isEmpty()) {
                    if (store.tokens().byName(tx, NAME).isPresent()) {
                        store.tokens().replace(tx, NAME, token);
                        log.info("the configured admin token differs from the stored one: the stored one is replaced");
                    } else {
                        store.tokens().add(tx, NAME, token, "admin", "server");
                    }
                }
                return null;
            });
        } catch (RuntimeException e) {
            if (store.tx(tx -> store.tokens().find(tx, token)).isEmpty()) {
                throw e;
            }
        }
    }

    /**
     * A new admin token, prefixed like every token AX makes: bare URL-safe Base64 starts with '-' one time in 64, and
     * {@code ax … --token -xyz} then reads the token as an option.
     */
    static String newToken() {
        byte[] bytes = new byte[TOKEN_BYTES];
        new SecureRandom().nextBytes(bytes);
        return Tokens.PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Written to a temporary file created owner-only, then moved into place: the token is never world-readable. */
    private static void write(Path file, String token) {
        try {
            Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
            Files.deleteIfExists(tmp);
            if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                Files.createFile(
                        tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } else {
                Files.createFile(tmp);
            }
            Files.writeString(tmp, token + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new StartupException("cannot write the admin token to " + file + ": " + e.getMessage(), e);
        }
    }
}
