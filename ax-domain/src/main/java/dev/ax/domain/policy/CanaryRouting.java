package dev.ax.domain.policy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Which version a new run of a task under a canary rollout gets. With a percentage the choice is
 * a pure function of the run's fire key: the first 8 bytes of SHA-256(fire key), unsigned, mod 100,
 * below the percentage → canary. Every node computes the same answer, and a slot fired again
 * (a backfill of it, a second node racing for it) always maps to the same version.
 *
 * <p>SHA-256 rather than CRC32 or {@code String.hashCode}: fire keys of consecutive slots differ in
 * a character or two, and a linear checksum of such keys is far from uniform mod 100.
 */
public final class CanaryRouting {
    private CanaryRouting() {}

    /** The bucket of a fire key, 0..99. */
    public static int bucket(String fireKey) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(fireKey.getBytes(StandardCharsets.UTF_8));
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = (v << 8) | (h[i] & 0xff);
            }
            return (int) Long.remainderUnsigned(v, 100);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** True when the run with this fire key goes to the canary of a {@code percent} % rollout (1..99). */
    public static boolean pick(String fireKey, int percent) {
        return bucket(fireKey) < percent;
    }

    /** True when the next run goes to the canary of a {@code runs: N} rollout that has routed {@code routedSoFar} runs. */
    public static boolean pickByCount(int routedSoFar, int runs) {
        return routedSoFar < runs;
    }
}
