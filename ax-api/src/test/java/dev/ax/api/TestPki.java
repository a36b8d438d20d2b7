package dev.ax.api;

import dev.ax.domain.time.SystemClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS8EncryptedPrivateKeyInfoBuilder;
import org.bouncycastle.pkcs.jcajce.JcePKCSPBEOutputEncryptorBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * A certificate authority made for one test: a CA, server certificates it signs, and PEM files of both, the
 * way an operator would have them from their own CA.
 */
public final class TestPki {
    /** How a private key is written: {@code BEGIN PRIVATE KEY}, or {@code BEGIN RSA/EC PRIVATE KEY}, or encrypted. */
    public enum KeyFormat {
        PKCS8,
        TRADITIONAL,
        ENCRYPTED_PKCS8
    }

    /** A certificate and its key. */
    public record Issued(X509Certificate certificate, PrivateKey key) {}

    private static final AtomicLong SERIAL = new AtomicLong(1000);
    private final KeyPair caKeys;
    private final X509Certificate ca;

    /** A new CA with an RSA key. */
    public TestPki() {
        this("AX Test CA");
    }

    public TestPki(String name) {
        try {
            caKeys = keys("RSA");
            X500Name subject = new X500Name("CN=" + name);
            X509v3CertificateBuilder b = builder(subject, subject, caKeys);
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            ca = sign(b, caKeys.getPrivate());
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    public X509Certificate ca() {
        return ca;
    }

    /**
     * A server certificate for these names (host names, or IP addresses written as digits), with a key of
     * {@code algorithm} ("RSA" or "EC").
     */
    public Issued server(String algorithm, String... names) {
        try {
            KeyPair keys = keys(algorithm);
            X509v3CertificateBuilder b = builder(
                    X500Name.getInstance(ca.getSubjectX500Principal().getEncoded()),
                    new X500Name("CN=" + names[0]),
                    keys);
            List<GeneralName> alternatives = new ArrayList<>();
            for (String name : names) {
                alternatives.add(new GeneralName(
                        name.matches("[0-9.]+|.*:.*") ? GeneralName.iPAddress : GeneralName.dNSName, name));
            }
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(
                    Extension.subjectAlternativeName,
                    false,
                    new GeneralNames(alternatives.toArray(GeneralName[]::new)));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
            return new Issued(sign(b, caKeys.getPrivate()), keys.getPrivate());
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The CA's certificate as PEM: what clients are given with --ca. */
    public Path writeCa(Path file) {
        return pem(file, List.of(ca));
    }

    /** The server's certificate followed by the CA's: a chain as --tls-cert takes it. */
    public Path writeChain(Path file, Issued issued) {
        return pem(file, List.of(issued.certificate(), ca));
    }

    public static Path writeKey(Path file, PrivateKey key, KeyFormat format) {
        try (Writer out = Files.newBufferedWriter(file);
                JcaPEMWriter pem = new JcaPEMWriter(out)) {
            switch (format) {
                case PKCS8 -> pem.writeObject(new JcaPKCS8Generator(key, null));
                case TRADITIONAL -> pem.writeObject(traditional(key));
                case ENCRYPTED_PKCS8 ->
                    pem.writeObject(new JcaPKCS8EncryptedPrivateKeyInfoBuilder(key)
                            .build(new JcePKCSPBEOutputEncryptorBuilder(
                                            PKCSObjectIdentifiers.pbeWithSHAAnd3_KeyTripleDES_CBC)
                                    .build("secret".toCharArray())));
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * PKCS#1 for RSA; SEC1 with its curve named for EC, as {@code openssl ecparam -genkey} writes it (the JDK's key
     * names the curve only in its PKCS#8 wrapper, and the SEC1 form without it names no curve at all). The public
     * key is left out, as some tools do: a reader must not need it.
     */
    private static Object traditional(PrivateKey key) throws IOException {
        if (!"EC".equals(key.getAlgorithm())) {
            return key;
        }
        PrivateKeyInfo info = PrivateKeyInfo.getInstance(key.getEncoded());
        ECPrivateKey sec1 = ECPrivateKey.getInstance(info.parsePrivateKey());
        ECPrivateKey named = new ECPrivateKey(
                256, sec1.getKey(), info.getPrivateKeyAlgorithm().getParameters());
        return new PemObject("EC PRIVATE KEY", named.getEncoded());
    }

    static Path pem(Path file, List<?> objects) {
        try (Writer out = Files.newBufferedWriter(file);
                JcaPEMWriter pem = new JcaPEMWriter(out)) {
            for (Object o : objects) {
                pem.writeObject(o);
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static KeyPair keys(String algorithm) throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
        generator.initialize("EC".equals(algorithm) ? 256 : 2048);
        return generator.generateKeyPair();
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        // Certificates are checked against the machine's real time, so they are made on it, with an hour's slack.
        Instant now = SystemClock.UTC.now();
        return new JcaX509v3CertificateBuilder(
                issuer,
                BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(2))),
                subject,
                keys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey issuerKey)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter()
                .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withRSA").build(issuerKey)));
    }
}
