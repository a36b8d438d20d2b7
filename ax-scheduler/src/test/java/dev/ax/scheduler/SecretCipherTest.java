package dev.ax.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.store.SecretStore.Sealed;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** AES-256-GCM seals: a fresh nonce each time, bound to the secret's name, refused by another key or a changed byte. */
class SecretCipherTest {
    static final MasterKey KEY = MasterKey.random();

    @Test
    void a_sealed_value_opens_with_its_key_and_name() throws Exception {
        Sealed sealed = SecretCipher.seal(KEY, "db_password", "hunter2-ünïcode");

        assertThat(sealed.keyId()).isEqualTo(KEY.id());
        assertThat(sealed.nonce()).hasSize(12);
        assertThat(new String(sealed.ciphertext(), StandardCharsets.ISO_8859_1)).doesNotContain("hunter2");
        assertThat(SecretCipher.open(KEY, "db_password", sealed)).isEqualTo("hunter2-ünïcode");
    }

    @Test
    void each_seal_takes_a_fresh_nonce_so_equal_values_look_different() {
        Sealed one = SecretCipher.seal(KEY, "a", "same value");
        Sealed two = SecretCipher.seal(KEY, "a", "same value");

        assertThat(one.nonce()).isNotEqualTo(two.nonce());
        assertThat(one.ciphertext()).isNotEqualTo(two.ciphertext());
    }

    @Test
    void a_ciphertext_moved_to_another_name_does_not_open() {
        Sealed sealed = SecretCipher.seal(KEY, "staging_password", "hunter22");

        assertThatThrownBy(() -> SecretCipher.open(KEY, "prod_password", sealed))
                .isInstanceOf(SecretCipher.WrongKeyException.class)
                .hasMessageNotContaining("hunter22");
    }

    @Test
    void another_key_or_a_changed_byte_does_not_open() {
        Sealed sealed = SecretCipher.seal(KEY, "a", "hunter22");
        byte[] changed = sealed.ciphertext().clone();
        changed[0] ^= 1;

        assertThatThrownBy(() -> SecretCipher.open(MasterKey.random(), "a", sealed))
                .isInstanceOf(SecretCipher.WrongKeyException.class);
        assertThatThrownBy(() -> SecretCipher.open(KEY, "a", new Sealed(changed, sealed.nonce(), sealed.keyId())))
                .isInstanceOf(SecretCipher.WrongKeyException.class);
    }

    @Test
    void a_key_is_the_base64_of_32_bytes_and_its_id_is_16_hex_digits_of_its_hash() {
        byte[] bytes = new byte[32];
        bytes[0] = 7;
        String text = Base64.getEncoder().encodeToString(bytes);

        MasterKey key = MasterKey.fromBase64(" " + text + "\n");

        assertThat(key).isEqualTo(MasterKey.of(bytes));
        assertThat(key.id())
                .matches("[0-9a-f]{16}")
                .isEqualTo(MasterKey.fromBase64(text).id());
        assertThat(key.base64()).isEqualTo(text);
        assertThat(key.toString()).isEqualTo("MasterKey[" + key.id() + "]");
        assertThat(MasterKey.fromBase64(Base64.getUrlEncoder().encodeToString(bytes)))
                .isEqualTo(key);
        assertThatThrownBy(() -> MasterKey.fromBase64("not base64!")).hasMessageContaining("is not base64");
        assertThatThrownBy(() -> MasterKey.fromBase64(Base64.getEncoder().encodeToString(new byte[16])))
                .hasMessageContaining("is 16 bytes once decoded");
        assertThatThrownBy(() -> MasterKey.fromBase64(null)).hasMessageContaining("is 0 bytes");
    }
}
