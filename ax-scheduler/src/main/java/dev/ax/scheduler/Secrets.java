package dev.ax.scheduler;

import dev.ax.domain.run.EventType;
import dev.ax.domain.secret.SecretInput;
import dev.ax.domain.secret.SecretMask;
import dev.ax.store.ConcurrentChangeException;
import dev.ax.store.NewEvent;
import dev.ax.store.SecretStore;
import dev.ax.store.SecretStore.Sealed;
import dev.ax.store.SecretStore.SecretRow;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stored secrets ({@code {{secret.NAME}}}): set, listed, deleted and their key rotated by admins, each change an event
 * with its actor and the secret's name, never its value. Values are opened in the transaction that hands work to its
 * executor ({@link #read}), and for this node's {@link #mask}, which writes {@code ***} for them in the text the node
 * stores and shows. A change made here is masked at once; one made on another node within a housekeeping pass or two
 * ({@link #refresh}: one read of the generation every change bumps).
 */
public final class Secrets implements SecretValues {
    private static final Logger log = LoggerFactory.getLogger(Secrets.class);
    /** The actor of what a node does to secrets by itself (sealing rows again with its key at start). */
    static final String NODE_ACTOR = "server";

    private final Store store;
    private final SecretStore secrets;
    private final Keyring keyring;
    private final String nodeId;
    private final Object rotation = new Object();
    private volatile Known known = new Known(-1, SecretMask.NONE);
    private long warnedAt = -1; // the generation whose unreadable rows were last logged; guarded by this

    /** What this node masks, as of a generation of the secrets. */
    private record Known(long generation, SecretMask mask) {}

    /** A secret as admins see it: never its value. */
    public record Info(
            String name, String keyId, Instant createdAt, String createdBy, Instant updatedAt, String updatedBy) {
        static Info of(SecretRow r) {
            return new Info(r.name(), r.keyId(), r.createdAt(), r.createdBy(), r.updatedAt(), r.updatedBy());
        }
    }

    /** A secret after a set: {@code created} when the name was new. */
    public record Saved(Info secret, boolean created) {}

    /** A rotation: the new key's id, the old one's, and how many secrets were sealed again. */
    public record Rotated(String keyId, String previousKeyId, int secrets) {}

    Secrets(Store store, Keyring keyring, String nodeId) {
        this.store = store;
        this.secrets = store.secrets();
        this.keyring = keyring;
        this.nodeId = nodeId;
    }

    /**
     * At the node's start: seals again with the current key the rows still under a retired one (after a restart with
     * {@code AX_SECRET_KEY_PREVIOUS}, or a rotation that did not finish), lets the keyring drop retired keys once no
     * row needs them, and learns the values to mask. Safe when several nodes start at once: the rows are sealed again
     * under the generation lock, one node after the other, and a row already under the current key is left alone.
     */
    public void start() {
        if (keyring != Keyring.NONE) {
            resealToCurrent(NODE_ACTOR);
            List<String> elsewhere = store.tx(tx -> secrets.all(tx).stream()
                    .filter(r -> !r.keyId().equals(keyring.current().id()))
                    .map(r -> r.name() + " (key " + r.keyId() + ")")
                    .toList());
            if (elsewhere.isEmpty()) {
                keyring.settled();
            } else {
                log.warn(
                        "secrets {} are sealed with a key this node does not have (its key is {}, {}): every node needs the"
                                + " same AX_SECRET_KEY",
                        elsewhere,
                        keyring.current().id(),
                        keyring.source());
            }
        }
        reload();
    }

    @Override
    public Map<String, String> read(Tx tx, Set<String> names) {
        Map<String, String> values = new LinkedHashMap<>();
        for (SecretRow row : secrets.find(tx, names)) {
            values.put(row.name(), open(row));
        }
        return values;
    }

    @Override
    public SecretMask mask() {
        return known.mask();
    }

    /** The id of the key that seals new values here, or null when this node has none. */
    public String keyId() {
        return keyring == Keyring.NONE ? null : keyring.current().id();
    }

    /** Sets a secret (400 for a bad name or value); the answer never holds the value. */
    public Saved set(String name, Object value, String actor) {
        SecretInput.name(name);
        Sealed sealed = SecretCipher.seal(keyring.current(), name, SecretInput.value(value));
        Saved saved = store.tx(tx -> {
            secrets.lockGeneration(tx);
            boolean created = secrets.find(tx, name).isEmpty();
            if (!(created ? secrets.insert(tx, name, sealed, actor) : secrets.update(tx, name, sealed, actor))) {
                throw new ConcurrentChangeException("secret " + name + " changed meanwhile");
            }
            changed(
                    tx,
                    created ? EventType.SECRET_CREATED : EventType.SECRET_UPDATED,
                    actor,
                    "secret " + name + (created ? " created" : " updated"),
                    Map.of("name", name, "keyId", sealed.keyId()));
            return new Saved(Info.of(secrets.find(tx, name).orElseThrow()), created);
        });
        reload();
        return saved;
    }

    /** Every secret, by name: who set it when, and the id of its key. */
    public List<Info> list() {
        return store.tx(tx -> secrets.all(tx).stream().map(Info::of).toList());
    }

    /** Deletes a secret: 404 when there is none, 409 naming the tasks that still use it. */
    public void delete(String name, String actor) {
        SecretInput.name(name);
        store.tx(tx -> {
            secrets.lockGeneration(tx);
            // The row first: a task saved meanwhile holds it (SecretChecks#requireSet), so this waits for that save and
            // then sees its task below.
            if (!secrets.delete(tx, name)) {
                throw new NotFoundException("no secret named " + name);
            }
            List<String> users = SecretChecks.tasksUsing(tx, store, name);
            if (!users.isEmpty()) {
                throw new ConflictException("secret " + name + " is used by " + (users.size() == 1 ? "task " : "tasks ")
                        + String.join(", ", users) + "; remove {{secret." + name + "}} from "
                        + (users.size() == 1 ? "it" : "them")
                        + " first");
            }
            changed(tx, EventType.SECRET_DELETED, actor, "secret " + name + " deleted", Map.of("name", name));
            return null;
        });
        reload();
    }

    /**
     * A new key, and every secret sealed again with it in one transaction. The keyring keeps the new key durably before
     * the transaction, so no row is ever sealed with a key that a crash could lose, and keeps the old one until a
     * later start has seen every row under the new one ({@link #start}): a commit whose answer was lost looks failed
     * and may have happened, and either way one of the two keys opens each row. Rows under the retired key of an
     * earlier rotation are sealed again first, since this one lets that key go.
     */
    public Rotated rotateKey(String actor) {
        synchronized (rotation) {
            resealToCurrent(actor);
            MasterKey old = keyring.current();
            MasterKey next = keyring.rotate();
            int n = store.tx(tx -> {
                secrets.lockGeneration(tx);
                int sealedAgain = resealAll(tx, next);
                changed(
                        tx,
                        EventType.SECRET_KEY_ROTATED,
                        actor,
                        "secret key rotated: " + sealedAgain + " secrets sealed with key " + next.id() + " (was "
                                + old.id() + ")",
                        Map.of("keyId", next.id(), "previousKeyId", old.id(), "secrets", sealedAgain));
                return sealedAgain;
            });
            reload();
            return new Rotated(next.id(), old.id(), n);
        }
    }

    /** Learns the secrets another node changed, when the generation moved: one read of a primary key otherwise. */
    public void refresh() {
        if (store.tx(secrets::generation) != known.generation()) {
            reload();
        }
    }

    /** Rows under a retired key this node holds, sealed again with the current key; returns how many. */
    private int resealToCurrent(String actor) {
        MasterKey current = keyring.current();
        boolean behind = store.tx(tx ->
                secrets.all(tx).stream().anyMatch(r -> !r.keyId().equals(current.id()) && keyFor(r.keyId()) != null));
        if (!behind) {
            return 0;
        }
        return store.tx(tx -> {
            secrets.lockGeneration(tx);
            int n = resealAll(tx, current);
            if (n > 0) {
                changed(
                        tx,
                        EventType.SECRET_KEY_ROTATED,
                        actor,
                        n + " secrets sealed again with key " + current.id() + " by node " + nodeId,
                        Map.of("keyId", current.id(), "secrets", n));
            }
            return n;
        });
    }

    /** Seals with {@code to} every row under another key this node holds (after {@link SecretStore#lockGeneration}). */
    private int resealAll(Tx tx, MasterKey to) {
        int n = 0;
        for (SecretRow row : secrets.all(tx)) {
            if (row.keyId().equals(to.id()) || keyFor(row.keyId()) == null) {
                continue;
            }
            Sealed again = SecretCipher.seal(to, row.name(), open(row));
            if (!secrets.reseal(tx, row.name(), row.keyId(), again)) {
                throw new ConcurrentChangeException("secret " + row.name() + " changed while its key was rotated");
            }
            n++;
        }
        return n;
    }

    private void changed(Tx tx, EventType type, String actor, String message, Map<String, Object> data) {
        secrets.bumpGeneration(tx);
        store.events().append(tx, new NewEvent(null, null, type, actor, nodeId, message, data));
    }

    /** The value of a row; an {@link IllegalArgumentException} naming both keys when this node's cannot open it. */
    private String open(SecretRow row) {
        MasterKey key = keyFor(row.keyId());
        if (key == null) {
            throw new IllegalArgumentException(
                    "secret " + row.name() + " is sealed with key " + row.keyId() + ", and this node's key is "
                            + currentKeyId() + " (" + keyring.source()
                            + "): every node needs the same AX_SECRET_KEY (after a rotation, the"
                            + " new key in AX_SECRET_KEY and the old one in AX_SECRET_KEY_PREVIOUS until every node restarted)");
        }
        try {
            return SecretCipher.open(key, row.name(), row.sealed());
        } catch (SecretCipher.WrongKeyException e) {
            throw new IllegalArgumentException("secret " + row.name() + " does not open with key " + key.id()
                    + ", the key it names: its row was changed outside AX; set it again (ax secret set " + row.name()
                    + ")");
        }
    }

    private MasterKey keyFor(String keyId) {
        if (keyring == Keyring.NONE) {
            return null;
        }
        if (keyring.current().id().equals(keyId)) {
            return keyring.current();
        }
        return keyring.retired().stream()
                .filter(k -> k.id().equals(keyId))
                .findFirst()
                .orElse(null);
    }

    private String currentKeyId() {
        return keyring == Keyring.NONE ? "none" : keyring.current().id();
    }

    /** Reads every value this node can open into a new mask; the generation first, so a change meanwhile is read again. */
    private synchronized void reload() {
        List<String> unreadable = new ArrayList<>();
        Known fresh = store.tx(tx -> {
            long generation = secrets.generation(tx);
            List<String> values = new ArrayList<>();
            for (SecretRow row : secrets.all(tx)) {
                try {
                    values.add(open(row));
                } catch (IllegalArgumentException e) {
                    unreadable.add(row.name() + " (key " + row.keyId() + ")");
                }
            }
            return new Known(generation, SecretMask.of(values));
        });
        if (!unreadable.isEmpty() && warnedAt != fresh.generation()) {
            warnedAt = fresh.generation();
            log.warn(
                    "this node cannot open secrets {} with its key {} ({}), so it can neither hand them to runs nor mask them:"
                            + " every node needs the same AX_SECRET_KEY",
                    new TreeSet<>(unreadable),
                    currentKeyId(),
                    keyring.source());
        }
        known = fresh;
    }
}
