package dev.ax.scheduler;

import dev.ax.store.SecretStore.Sealed;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

/**
 * AES-256-GCM over secret values: a fresh random 96-bit nonce per seal, the secret's name as associated data (a
 * ciphertext copied to another name does not open), a 128-bit tag that refuses any change of the bytes.
 */
public final class SecretCipher {
    static final String TRANSFORMATION = "AES/GCM/NoPadding";
    static final int NONCE_BYTES = 12;
    static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private SecretCipher() {}

    /** Thrown when a key does not open a sealed value: another key sealed it, or its bytes or name changed. */
    public static final class WrongKeyException extends Exception {
        WrongKeyException(String message) {
            super(message);
        }
    }

    public static Sealed seal(MasterKey key, String name, String value) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance(TRANSFORMATION);
            cipher.init(Cipher.ENCRYPT_MODE, key.spec(), new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(name.getBytes(StandardCharsets.UTF_8));
            return new Sealed(cipher.doFinal(value.getBytes(StandardCharsets.UTF_8)), nonce, key.id());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is part of every JDK: " + e.getMessage(), e);
        }
    }

    public static String open(MasterKey key, String name, Sealed sealed) throws WrongKeyException {
        try {
            Cipher cipher = Cipher.getInstance(TRANSFORMATION);
            cipher.init(Cipher.DECRYPT_MODE, key.spec(), new GCMParameterSpec(TAG_BITS, sealed.nonce()));
            cipher.updateAAD(name.getBytes(StandardCharsets.UTF_8));
            return new String(cipher.doFinal(sealed.ciphertext()), StandardCharsets.UTF_8);
        } catch (AEADBadTagException e) {
            throw new WrongKeyException("key " + key.id() + " does not open secret " + name);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new WrongKeyException(
                    "secret " + name + " cannot be opened: " + e.getClass().getSimpleName());
        }
    }
}
