package dev.ax.scheduler;

import java.util.List;

/**
 * The master keys of this node: the current one seals every value; keys a rotation retired may still open rows until
 * those are sealed again ({@link Secrets#start} does it). The server's keyring reads {@code AX_SECRET_KEY} (and
 * {@code AX_SECRET_KEY_PREVIOUS}) or keeps a key file in its data directory.
 */
public interface Keyring {
    /** A node without a key: it cannot set or read secrets, and says so. */
    Keyring NONE = new Keyring() {
        @Override
        public MasterKey current() {
            throw new ConflictException("this node has no secret key; secrets can be neither set nor read here");
        }

        @Override
        public List<MasterKey> retired() {
            return List.of();
        }

        @Override
        public MasterKey rotate() {
            return current();
        }

        @Override
        public String source() {
            return "no secret key";
        }
    };

    /** The key that seals every new value. */
    MasterKey current();

    /** Keys that rows may still be sealed with (the previous key after a rotation); never used to seal. */
    List<MasterKey> retired();

    /**
     * Replaces the current key with a new one and keeps the old one among the retired, durably, before any row is
     * sealed with the new one. Throws a {@link ConflictException} saying what to do instead when the key is not this
     * node's to change (it comes from {@code AX_SECRET_KEY}).
     */
    MasterKey rotate();

    /** Every row is sealed with the current key: retired keys kept for rows not yet sealed again may go. */
    default void settled() {}

    /** Where the key comes from, in words for messages ("AX_SECRET_KEY", "the key file /srv/ax/secret.key"); never the key. */
    String source();

    /** A key held in memory only (tests; a node whose secrets need not outlive it): rotations stay in memory too. */
    static Keyring inMemory(MasterKey key) {
        return new Keyring() {
            private MasterKey current = key;
            private MasterKey previous;

            @Override
            public synchronized MasterKey current() {
                return current;
            }

            @Override
            public synchronized List<MasterKey> retired() {
                return previous == null ? List.of() : List.of(previous);
            }

            @Override
            public synchronized MasterKey rotate() {
                previous = current;
                current = MasterKey.random();
                return current;
            }

            @Override
            public synchronized void settled() {
                previous = null;
            }

            @Override
            public String source() {
                return "a key in memory";
            }
        };
    }
}
