package dev.ax.scheduler;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.spec.SecretKeySpec;

/**
 * An AES-256 key that seals secrets, with its id: the first 8 bytes of its SHA-256, in hex. The id is stored with each
 * row it seals, so a node whose key differs can say which key it has and which one the row needs without either key
 * being shown. Never printed: {@link #toString} gives the id only.
 */
public final class MasterKey {
    public static final int BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] bytes;
    private final String id;

    private MasterKey(byte[] bytes) {
        this.bytes = bytes.clone();
        this.id = idOf(this.bytes);
    }

    /** A key of exactly 32 bytes. */
    public static MasterKey of(byte[] bytes) {
        if (bytes == null || bytes.length != BYTES) {
            throw new IllegalArgumentException(
                    "a master key is " + BYTES + " bytes, got " + (bytes == null ? 0 : bytes.length));
        }
        return new MasterKey(bytes);
    }

    /**
     * A key from its base64 text (standard or URL-safe alphabet, surrounding whitespace ignored); the message of the
     * exception says what is wrong, never the text.
     */
    public static MasterKey fromBase64(String text) {
        byte[] decoded;
        try {
            String s = text == null ? "" : text.strip();
            decoded = (s.indexOf('-') >= 0 || s.indexOf('_') >= 0 ? Base64.getUrlDecoder() : Base64.getDecoder())
                    .decode(s);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("is not base64 (make one with: openssl rand -base64 32)");
        }
        if (decoded.length != BYTES) {
            throw new IllegalArgumentException("is " + decoded.length + " bytes once decoded; it must be the base64 of "
                    + BYTES + " bytes (make one with: openssl rand -base64 32)");
        }
        return new MasterKey(decoded);
    }

    /** A new random key. */
    public static MasterKey random() {
        byte[] b = new byte[BYTES];
        RANDOM.nextBytes(b);
        return new MasterKey(b);
    }

    public String id() {
        return id;
    }

    public String base64() {
        return Base64.getEncoder().encodeToString(bytes);
    }

    SecretKeySpec spec() {
        return new SecretKeySpec(bytes, "AES");
    }

    private static String idOf(byte[] key) {
        try {
            return HexFormat.of()
                    .formatHex(
                            Arrays.copyOf(MessageDigest.getInstance("SHA-256").digest(key), 8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MasterKey k && MessageDigest.isEqual(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "MasterKey[" + id + "]";
    }
}
