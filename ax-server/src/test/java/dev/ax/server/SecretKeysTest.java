package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.scheduler.ConflictException;
import dev.ax.scheduler.Keyring;
import dev.ax.scheduler.MasterKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the master key comes from: AX_SECRET_KEY (and the previous one), else an owner-only key file that rotates itself. */
class SecretKeysTest {
    @TempDir
    Path dir;

    static String permissions(Path file) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
    }

    @Test
    void the_first_start_writes_an_owner_only_key_file_and_later_starts_read_it() throws Exception {
        Keyring first = SecretKeys.load(dir, null, null);
        Path file = dir.resolve("secret.key");

        assertThat(permissions(file)).isEqualTo("rw-------");
        assertThat(MasterKey.fromBase64(Files.readString(file))).isEqualTo(first.current());
        assertThat(first.retired()).isEmpty();
        assertThat(first.source()).isEqualTo("the key file " + file.toAbsolutePath());
        assertThat(SecretKeys.load(dir, null, null).current()).isEqualTo(first.current());
    }

    @Test
    void a_rotation_writes_the_new_key_and_keeps_the_old_one_until_settled() throws Exception {
        Keyring keys = SecretKeys.load(dir, null, null);
        MasterKey old = keys.current();

        MasterKey next = keys.rotate();

        assertThat(keys.current()).isEqualTo(next).isNotEqualTo(old);
        assertThat(keys.retired()).containsExactly(old);
        assertThat(MasterKey.fromBase64(Files.readString(dir.resolve("secret.key"))))
                .isEqualTo(next);
        assertThat(MasterKey.fromBase64(Files.readString(dir.resolve("secret.key.previous"))))
                .isEqualTo(old);
        assertThat(permissions(dir.resolve("secret.key"))).isEqualTo("rw-------");
        assertThat(permissions(dir.resolve("secret.key.previous"))).isEqualTo("rw-------");
        assertThat(Files.exists(dir.resolve("secret.key.tmp"))).isFalse();
        // A restart before every secret was sealed again still has both keys.
        Keyring restarted = SecretKeys.load(dir, null, null);
        assertThat(restarted.current()).isEqualTo(next);
        assertThat(restarted.retired()).containsExactly(old);

        restarted.settled();

        assertThat(Files.exists(dir.resolve("secret.key.previous"))).isFalse();
        assertThat(restarted.retired()).isEmpty();
    }

    @Test
    void a_key_file_that_holds_no_key_refuses_the_start_naming_the_file() throws Exception {
        Files.writeString(dir.resolve("secret.key"), "not a key\n");

        assertThatThrownBy(() -> SecretKeys.load(dir, null, null))
                .isInstanceOf(StartupException.class)
                .hasMessageContaining(dir.resolve("secret.key").toAbsolutePath().toString())
                .hasMessageContaining("is not base64");
    }

    @Test
    void ax_secret_key_wins_over_the_file_and_its_previous_key_stays_readable() {
        MasterKey key = MasterKey.random();
        MasterKey previous = MasterKey.random();

        Keyring keys = SecretKeys.load(dir, key.base64(), previous.base64());

        assertThat(keys.current()).isEqualTo(key);
        assertThat(keys.retired()).containsExactly(previous);
        assertThat(keys.source()).isEqualTo("AX_SECRET_KEY");
        assertThat(Files.exists(dir.resolve("secret.key")))
                .as("no key file when the key is given")
                .isFalse();
        assertThatThrownBy(keys::rotate)
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("AX_SECRET_KEY_PREVIOUS")
                .hasMessageContaining("restart every node");
    }

    @Test
    void a_bad_ax_secret_key_refuses_the_start_naming_it_and_never_showing_it() {
        assertThatThrownBy(() -> SecretKeys.load(dir, "c2hvcnQ=", null))
                .isInstanceOf(StartupException.class)
                .hasMessage("cannot start: AX_SECRET_KEY is 5 bytes once decoded; it must be the base64 of 32 bytes"
                        + " (make one with: openssl rand -base64 32)");
        assertThatThrownBy(() -> SecretKeys.load(dir, "%%% not base64 %%%", null))
                .isInstanceOf(StartupException.class)
                .hasMessageContaining("AX_SECRET_KEY is not base64")
                .hasMessageNotContaining("%%%");
        assertThatThrownBy(() -> SecretKeys.load(dir, MasterKey.random().base64(), "bad"))
                .isInstanceOf(StartupException.class)
                .hasMessageContaining("AX_SECRET_KEY_PREVIOUS");
        assertThatThrownBy(() -> SecretKeys.load(dir, null, MasterKey.random().base64()))
                .isInstanceOf(StartupException.class)
                .hasMessageContaining("AX_SECRET_KEY_PREVIOUS is set but AX_SECRET_KEY is not");
    }
}
