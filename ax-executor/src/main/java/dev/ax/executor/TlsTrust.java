package dev.ax.executor;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Whom a client of an {@code https://} AX server trusts, and why a handshake failed, in words.
 *
 * <p>With a CA file (the CLI's and executor's {@code --ca}, the SDK's {@code trustedCa}) the client trusts the
 * certificates in it and no others, as {@code curl --cacert} does: a private CA is the usual way to serve AX over
 * HTTPS, and a connection meant for it should not be satisfied by any public CA. Without one, the JVM's trusted
 * CAs apply. Either way the certificate must name the host the client dialed.
 */
public final class TlsTrust {
    private TlsTrust() {}

    /**
     * A TLS context trusting exactly the certificates in a PEM file (one or more {@code BEGIN CERTIFICATE} blocks).
     * A missing or unreadable file, or one without a certificate, is an {@link IllegalArgumentException} whose
     * message starts with the file.
     */
    public static SSLContext trusting(Path caFile) {
        List<X509Certificate> certificates;
        try (InputStream in = Files.newInputStream(caFile)) {
            certificates = CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
                    .map(X509Certificate.class::cast)
                    .toList();
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(caFile + ": no such file", e);
        } catch (IOException e) {
            throw new IllegalArgumentException(caFile + ": cannot read it: " + e.getMessage(), e);
        } catch (CertificateException e) {
            throw new IllegalArgumentException(caFile + " is not a PEM certificate file: " + e.getMessage(), e);
        }
        if (certificates.isEmpty()) {
            throw new IllegalArgumentException(
                    caFile + " holds no certificate (a PEM file with -----BEGIN CERTIFICATE----- blocks)");
        }
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            for (int i = 0; i < certificates.size(); i++) {
                store.setCertificateEntry("ca-" + i, certificates.get(i));
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(caFile + ": cannot trust its certificates: " + e.getMessage(), e);
        }
    }

    /** Whether {@code e} is a failed TLS handshake (an untrusted or misnamed certificate, a server without TLS). */
    public static boolean isHandshakeFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SSLException) {
                return true;
            }
        }
        return false;
    }

    /**
     * One line saying why {@code e} happened: for a failed TLS handshake what was wrong with the certificate,
     * for an answer in TLS to plain HTTP that it was not HTTP, for anything else the exception itself.
     */
    public static String describe(IOException e) {
        if (!isHandshakeFailure(e)) {
            if (e.getMessage() != null && e.getMessage().startsWith("parsing HTTP/1.1 status line")) {
                // The JDK quotes the bytes it got, a TLS alert's among them: not for a log or a terminal.
                return "the answer was not HTTP (does the server speak HTTPS? then use https://)";
            }
            return e.toString();
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = t.getMessage() == null ? "" : t.getMessage();
            if (t instanceof CertPathBuilderException || message.contains("unable to find valid certification path")) {
                return "TLS handshake failed: the server's certificate is not signed by a CA this client trusts";
            }
            if (t instanceof CertificateExpiredException || t instanceof CertificateNotYetValidException) {
                return "TLS handshake failed: the server's certificate is outside its validity period (" + message
                        + ")";
            }
            if (message.startsWith("No subject alternative") || message.startsWith("No name matching")) {
                return "TLS handshake failed: the server's certificate is not for the host in the URL ("
                        + message.strip() + ")";
            }
            if (message.contains("Unsupported or unrecognized SSL message")) {
                return "TLS handshake failed: the server does not speak TLS on that port (is it an http:// server?)";
            }
        }
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return "TLS handshake failed: "
                + (root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage());
    }
}
