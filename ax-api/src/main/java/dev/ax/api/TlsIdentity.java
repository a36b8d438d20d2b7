package dev.ax.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * What a node serves HTTPS with: a certificate chain and its private key, read from the PEM files an
 * operator already has (from a CA, certbot, cert-manager or {@code openssl}), checked to belong together
 * when read, so a wrong file stops the start instead of every handshake.
 *
 * <p>Certificates are read by the JDK; keys by Bouncy Castle, which knows every PEM form a key comes in:
 * PKCS#8 ({@code BEGIN PRIVATE KEY}), PKCS#1 RSA ({@code BEGIN RSA PRIVATE KEY}) and SEC1 EC
 * ({@code BEGIN EC PRIVATE KEY}). Encrypted keys are refused: the server would need the password at
 * every start, which is a secret in a file again.
 */
public final class TlsIdentity {
    private static final String CERT_OPTION = "--tls-cert";
    private static final String KEY_OPTION = "--tls-key";
    /** Only in memory: the JDK's key manager wants a key store, and a key store wants a password. */
    private static final char[] IN_MEMORY = "ax".toCharArray();

    private final List<X509Certificate> chain;
    private final SSLContext sslContext;

    private TlsIdentity(List<X509Certificate> chain, SSLContext sslContext) {
        this.chain = chain;
        this.sslContext = sslContext;
    }

    /**
     * Reads a certificate chain (the server's certificate first, then the CAs between it and a root) and
     * the private key of its first certificate. A missing or unreadable file, a file without a certificate or
     * a key, or a key that does not belong to the certificate is an {@link IllegalArgumentException} naming
     * the option and the file.
     */
    public static TlsIdentity load(Path certificateChain, Path privateKey) {
        List<X509Certificate> chain = certificates(certificateChain);
        PrivateKey key = privateKey(privateKey);
        if (!matches(key, chain.getFirst())) {
            boolean elsewhere = chain.stream().skip(1).anyMatch(c -> matches(key, c));
            throw new IllegalArgumentException(KEY_OPTION + " " + privateKey + " does not belong to the certificate in "
                    + CERT_OPTION + " " + certificateChain + " ("
                    + chain.getFirst().getSubjectX500Principal().getName() + ")"
                    + (elsewhere
                            ? "; it belongs to a later certificate of the chain: the server's own certificate comes first"
                            : ""));
        }
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("ax", key, IN_MEMORY, chain.toArray(Certificate[]::new));
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, IN_MEMORY);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return new TlsIdentity(chain, context);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(
                    CERT_OPTION + " " + certificateChain + " with " + KEY_OPTION + " " + privateKey
                            + ": cannot be used for TLS: " + e.getMessage(),
                    e);
        }
    }

    SSLContext sslContext() {
        return sslContext;
    }

    /** The server's own certificate. */
    public X509Certificate certificate() {
        return chain.getFirst();
    }

    private static List<X509Certificate> certificates(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            List<X509Certificate> chain = CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
                    .map(X509Certificate.class::cast)
                    .toList();
            if (chain.isEmpty()) {
                throw new IllegalArgumentException(CERT_OPTION + " " + file + " holds no certificate (a PEM file with "
                        + "-----BEGIN CERTIFICATE----- blocks, the server's own first)");
            }
            return chain;
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(CERT_OPTION + " " + file + ": no such file", e);
        } catch (IOException e) {
            throw new IllegalArgumentException(CERT_OPTION + " " + file + ": cannot read it: " + e.getMessage(), e);
        } catch (CertificateException e) {
            throw new IllegalArgumentException(
                    CERT_OPTION + " " + file + " is not a PEM certificate chain: " + e.getMessage(), e);
        }
    }

    private static PrivateKey privateKey(Path file) {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
                PEMParser pem = new PEMParser(reader)) {
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            for (Object o = pem.readObject(); o != null; o = pem.readObject()) {
                switch (o) {
                    case PrivateKeyInfo pkcs8 -> {
                        return converter.getPrivateKey(pkcs8);
                    }
                    case PEMKeyPair pkcs1OrSec1 -> {
                        // Only the private half: a SEC1 EC key may leave its public key out.
                        return converter.getPrivateKey(pkcs1OrSec1.getPrivateKeyInfo());
                    }
                    case PEMEncryptedKeyPair encrypted -> throw encrypted(file);
                    case PKCS8EncryptedPrivateKeyInfo encrypted -> throw encrypted(file);
                    default -> {
                        // EC PARAMETERS, a certificate bundled with the key: not the key, read on
                    }
                }
            }
            throw new IllegalArgumentException(
                    KEY_OPTION + " " + file + " holds no private key (a PEM file with "
                            + "-----BEGIN PRIVATE KEY-----, -----BEGIN RSA PRIVATE KEY----- or -----BEGIN EC PRIVATE KEY-----)");
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(KEY_OPTION + " " + file + ": no such file", e);
        } catch (IOException e) {
            // Bouncy Castle's PEMException (a broken block) is an IOException too.
            throw new IllegalArgumentException(
                    KEY_OPTION + " " + file + ": cannot read a private key from it: " + e.getMessage(), e);
        }
    }

    private static IllegalArgumentException encrypted(Path file) {
        return new IllegalArgumentException(KEY_OPTION + " " + file + " is encrypted; AX reads unencrypted keys only "
                + "(keep the file readable by the server's user alone): openssl pkey -in " + file + " -out key.pem");
    }

    /** Whether the certificate's public key verifies what the private key signs: true for a pair of any key type. */
    private static boolean matches(PrivateKey key, X509Certificate certificate) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default ->
                throw new IllegalArgumentException(
                        KEY_OPTION + ": a " + key.getAlgorithm() + " key; AX serves HTTPS " + "with RSA or EC keys");
        };
        if (!key.getAlgorithm().equals(certificate.getPublicKey().getAlgorithm())) {
            return false;
        }
        try {
            byte[] challenge = new byte[32];
            new SecureRandom().nextBytes(challenge);
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(challenge);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(certificate.getPublicKey());
            verify.update(challenge);
            return verify.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
