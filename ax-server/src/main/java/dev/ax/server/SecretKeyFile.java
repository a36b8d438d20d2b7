package dev.ax.server;

import dev.ax.scheduler.Keyring;
import dev.ax.scheduler.MasterKey;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master key in the data directory: {@code secret.key}, the base64 of 32 random bytes, made on the first start and
 * readable by its owner only (like {@code admin.token}). A rotation writes a new one; the key it replaces stays in
 * {@code secret.key.previous} until a start has seen every secret sealed with the new one ({@link #settled}).
 */
final class SecretKeyFile implements Keyring {
    static final String FILE_NAME = "secret.key";
    static final String PREVIOUS_FILE_NAME = "secret.key.previous";
    private static final Logger log = LoggerFactory.getLogger(SecretKeyFile.class);

    private final Path file;
    private final Path previousFile;
    private MasterKey current; // guarded by this
    private MasterKey previous; // guarded by this; null when no secret.key.previous

    private SecretKeyFile(Path file, MasterKey current, MasterKey previous) {
        this.file = file;
        this.previousFile = file.resolveSibling(PREVIOUS_FILE_NAME);
        this.current = current;
        this.previous = previous;
    }

    /** The key file of {@code dataDir}, made now when there is none; a file that holds no key refuses the start. */
    static SecretKeyFile open(Path dataDir) {
        Path file = dataDir.resolve(FILE_NAME);
        Path previousFile = dataDir.resolve(PREVIOUS_FILE_NAME);
        MasterKey previous = Files.exists(previousFile) ? read(previousFile) : null;
        if (Files.exists(file)) {
            return new SecretKeyFile(file, read(file), previous);
        }
        MasterKey made = MasterKey.random();
        write(file, made);
        log.info("secret key {} written to {}", made.id(), file.toAbsolutePath());
        return new SecretKeyFile(file, made, previous);
    }

    @Override
    public synchronized MasterKey current() {
        return current;
    }

    @Override
    public synchronized List<MasterKey> retired() {
        return previous == null ? List.of() : List.of(previous);
    }

    /**
     * The new key is on the disk before any secret is sealed with it, and the old one stays in
     * {@code secret.key.previous}: a crash after the secrets were sealed again, or a commit whose answer was lost (it
     * may or may not have happened), leaves a key that opens each row, and the next start seals again what is still
     * under the old one. The order is the old key to {@code secret.key.previous} first, then the new one over
     * {@code secret.key}; each written to a temporary file created owner-only, synced, and moved into place atomically.
     */
    @Override
    public synchronized MasterKey rotate() {
        MasterKey next = MasterKey.random();
        write(previousFile, current);
        write(file, next);
        log.info(
                "secret key rotated: {} now, {} kept in {} until every secret is sealed with the new one",
                next.id(),
                current.id(),
                previousFile.toAbsolutePath());
        previous = current;
        current = next;
        return next;
    }

    /** Every secret is sealed with the current key: the previous one is deleted from the disk and forgotten. */
    @Override
    public synchronized void settled() {
        if (previous == null) {
            return;
        }
        try {
            Files.deleteIfExists(previousFile);
            log.info(
                    "every secret is sealed with key {}: {} (key {}) deleted",
                    current.id(),
                    previousFile.toAbsolutePath(),
                    previous.id());
            previous = null;
        } catch (IOException e) {
            log.warn("cannot delete {}: {}", previousFile.toAbsolutePath(), e.getMessage());
        }
    }

    @Override
    public String source() {
        return "the key file " + file.toAbsolutePath();
    }

    private static MasterKey read(Path file) {
        try {
            return MasterKey.fromBase64(Files.readString(file, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new StartupException(
                    "cannot start: cannot read the secret key file " + file.toAbsolutePath() + ": " + e.getMessage(),
                    e);
        } catch (IllegalArgumentException e) {
            throw new StartupException(
                    "cannot start: the secret key file " + file.toAbsolutePath() + " " + e.getMessage(), e);
        }
    }

    /** Written to a temporary file created owner-only, synced, then moved into place: never world-readable, never half-written. */
    static void write(Path file, MasterKey key) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.deleteIfExists(tmp);
            if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                Files.createFile(
                        tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } else {
                Files.createFile(tmp);
            }
            try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                out.write(ByteBuffer.wrap((key.base64() + "\n").getBytes(StandardCharsets.US_ASCII)));
                out.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            syncDirectory(file.getParent());
        } catch (IOException e) {
            throw new IllegalStateException(
                    "cannot write the secret key file " + file.toAbsolutePath() + ": " + e.getMessage(), e);
        }
    }

    /** The move itself reaches the disk (Linux syncs a directory opened for reading; elsewhere this may not be possible). */
    private static void syncDirectory(Path dir) {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            log.debug("cannot sync directory {}: {}", dir, e.getMessage());
        }
    }
}
