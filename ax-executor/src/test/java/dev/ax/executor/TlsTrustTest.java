package dev.ax.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertPathBuilderException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CA file's refusals and the handshake failures in words; trusting a real CA is shown end to end by the CLI's tests. */
class TlsTrustTest {
    @TempDir
    Path dir;

    @Test
    void a_missing_empty_or_foreign_ca_file_is_refused_naming_it() throws Exception {
        Path missing = dir.resolve("missing.pem");
        Path empty = Files.writeString(dir.resolve("empty.pem"), "");
        Path key = Files.writeString(
                dir.resolve("key.pem"), "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");

        assertThatThrownBy(() -> TlsTrust.trusting(missing)).hasMessage(missing + ": no such file");
        assertThatThrownBy(() -> TlsTrust.trusting(empty)).hasMessageStartingWith(empty + " holds no certificate");
        assertThatThrownBy(() -> TlsTrust.trusting(key)).hasMessageStartingWith(key.toString());
    }

    @Test
    void says_in_one_line_what_was_wrong_with_the_certificate() {
        IOException untrusted = new SSLHandshakeException("PKIX path building failed");
        untrusted.initCause(
                new CertPathBuilderException("unable to find valid certification path to requested target"));
        IOException misnamed =
                new SSLHandshakeException("No subject alternative names matching IP address 10.0.0.9 found");

        assertThat(TlsTrust.describe(untrusted))
                .isEqualTo("TLS handshake failed: the server's certificate is not signed by a CA this client trusts");
        assertThat(TlsTrust.describe(misnamed))
                .isEqualTo("TLS handshake failed: the server's certificate is not for the host "
                        + "in the URL (No subject alternative names matching IP address 10.0.0.9 found)");
        assertThat(TlsTrust.isHandshakeFailure(new ConnectException("Connection refused")))
                .isFalse();
        assertThat(TlsTrust.describe(new ConnectException("Connection refused")))
                .isEqualTo("java.net.ConnectException: Connection refused");
        assertThat(TlsTrust.describe(new IOException(
                        "parsing HTTP/1.1 status line, receiving [\u0015\u0003\u0003], parser state [STATUS_LINE]")))
                .isEqualTo("the answer was not HTTP (does the server speak HTTPS? then use https://)");
    }
}
