package dev.ax.server;

import dev.ax.scheduler.ConflictException;
import dev.ax.scheduler.Keyring;
import dev.ax.scheduler.MasterKey;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where this node's master key comes from. {@code AX_SECRET_KEY} (the base64 of 32 bytes) when it is set, with
 * {@code AX_SECRET_KEY_PREVIOUS} kept to open the rows sealed before a rotation: every node of a cluster must have the
 * same key, and a cluster rotates by restarting its nodes with both. Otherwise the key file {@code secret.key} of the
 * data directory ({@link SecretKeyFile}), made on the first start: one node, which rotates by itself.
 */
final class SecretKeys {
    static final String ENV = "AX_SECRET_KEY";
    static final String PREVIOUS_ENV = "AX_SECRET_KEY_PREVIOUS";
    private static final Logger log = LoggerFactory.getLogger(SecretKeys.class);

    private SecretKeys() {}

    /**
     * The keyring of a node; a key that is not the base64 of 32 bytes refuses the start, naming where it came from.
     *
     * @param key      {@code AX_SECRET_KEY} as configured; null = read the environment
     * @param previous {@code AX_SECRET_KEY_PREVIOUS} as configured; null = read the environment
     */
    static Keyring load(Path dataDir, String key, String previous) {
        String current = key != null ? key : System.getenv(ENV);
        String before = previous != null ? previous : System.getenv(PREVIOUS_ENV);
        if (current == null || current.isBlank()) {
            if (before != null && !before.isBlank()) {
                throw new StartupException(
                        "cannot start: " + PREVIOUS_ENV + " is set but " + ENV + " is not; set the new key in " + ENV
                                + " (the previous one opens only the secrets sealed before it)",
                        null);
            }
            return SecretKeyFile.open(dataDir);
        }
        MasterKey now = parse(ENV, current);
        List<MasterKey> retired = before == null || before.isBlank() ? List.of() : List.of(parse(PREVIOUS_ENV, before));
        return new FromEnvironment(now, retired);
    }

    private static MasterKey parse(String variable, String text) {
        try {
            return MasterKey.fromBase64(text);
        } catch (IllegalArgumentException e) {
            throw new StartupException("cannot start: " + variable + " " + e.getMessage(), e);
        }
    }

    /** The key of {@code AX_SECRET_KEY}, which AX reads and never changes. */
    private static final class FromEnvironment implements Keyring {
        private final MasterKey current;
        private final List<MasterKey> retired;
        private boolean told;

        FromEnvironment(MasterKey current, List<MasterKey> retired) {
            this.current = current;
            this.retired = retired;
        }

        @Override
        public MasterKey current() {
            return current;
        }

        @Override
        public List<MasterKey> retired() {
            return retired;
        }

        @Override
        public MasterKey rotate() {
            throw new ConflictException(
                    "the secret key comes from " + ENV + ", which AX does not change: make a new key"
                            + " (openssl rand -base64 32), restart every node with it in " + ENV
                            + " and the current one in " + PREVIOUS_ENV
                            + "; each node seals the secrets still under the previous key again when it starts, and once every node has"
                            + " restarted, " + PREVIOUS_ENV + " can go");
        }

        @Override
        public synchronized void settled() {
            if (!retired.isEmpty() && !told) {
                told = true;
                log.info(
                        "every secret is sealed with key {}: {} (key {}) is no longer needed on this node",
                        current.id(),
                        PREVIOUS_ENV,
                        retired.getFirst().id());
            }
        }

        @Override
        public String source() {
            return ENV;
        }
    }
}
