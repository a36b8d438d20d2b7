package dev.ax.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.api.TestPki.Issued;
import dev.ax.api.TestPki.KeyFormat;
import dev.ax.store.TestDatabases;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The API served over HTTPS from PEM files, and the files that cannot serve it refused at start, by option name. */
class HttpsTest {
    static final TestPki PKI = new TestPki();

    @TempDir
    Path dir;

    static HttpClient trustingTheTestCa() throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        store.setCertificateEntry("ca", PKI.ca());
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return HttpClient.newBuilder().sslContext(context).build();
    }

    TlsIdentity identity(Issued issued, KeyFormat format) {
        return TlsIdentity.load(
                PKI.writeChain(dir.resolve("chain.pem"), issued),
                TestPki.writeKey(dir.resolve("key.pem"), issued.key(), format));
    }

    @ParameterizedTest(name = "{0} key as {1}")
    @CsvSource({"RSA, PKCS8", "RSA, TRADITIONAL", "EC, PKCS8", "EC, TRADITIONAL"})
    void serves_https_with_a_pem_key_in_each_form(String algorithm, KeyFormat format) throws Exception {
        TlsIdentity tls = identity(PKI.server(algorithm, "localhost", "127.0.0.1"), format);
        try (TestNode node = new TestNode(TestDatabases.h2(), HttpOptions.DEFAULT.withTls(tls))) {
            HttpResponse<String> r = trustingTheTestCa()
                    .send(
                            HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + node.api.port() + "/api/tasks"))
                                    .header("Authorization", "Bearer " + TestNode.ADMIN)
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());

            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        }
    }

    @Test
    void a_client_that_does_not_trust_the_ca_cannot_talk_to_it() throws Exception {
        TlsIdentity tls = identity(PKI.server("RSA", "127.0.0.1"), KeyFormat.PKCS8);
        try (TestNode node = new TestNode(TestDatabases.h2(), HttpOptions.DEFAULT.withTls(tls))) {
            HttpRequest request = HttpRequest.newBuilder(
                            URI.create("https://127.0.0.1:" + node.api.port() + "/healthz"))
                    .build();
            assertThatThrownBy(() -> HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(SSLHandshakeException.class);
        }
    }

    @Test
    void a_key_that_is_not_the_certificates_is_refused_naming_both_options() {
        Path chain = PKI.writeChain(dir.resolve("chain.pem"), PKI.server("RSA", "localhost"));
        Path otherKey = TestPki.writeKey(
                dir.resolve("other.pem"), PKI.server("RSA", "localhost").key(), KeyFormat.PKCS8);

        assertThatThrownBy(() -> TlsIdentity.load(chain, otherKey))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "--tls-key " + otherKey + " does not belong to the certificate in --tls-cert " + chain)
                .hasMessageContaining("CN=localhost");
    }

    @Test
    void a_chain_with_the_ca_first_is_refused_with_the_reason() {
        Issued server = PKI.server("EC", "localhost");
        Path reversed = TestPki.pem(dir.resolve("reversed.pem"), List.of(PKI.ca(), server.certificate()));
        Path key = TestPki.writeKey(dir.resolve("key.pem"), server.key(), KeyFormat.PKCS8);

        assertThatThrownBy(() -> TlsIdentity.load(reversed, key))
                .hasMessageContaining(
                        "belongs to a later certificate of the chain: the server's own certificate comes first");
    }

    @Test
    void missing_unreadable_and_wrong_files_are_refused_naming_the_option_and_the_file() throws Exception {
        Issued server = PKI.server("RSA", "localhost");
        Path chain = PKI.writeChain(dir.resolve("chain.pem"), server);
        Path key = TestPki.writeKey(dir.resolve("key.pem"), server.key(), KeyFormat.PKCS8);
        Path missing = dir.resolve("missing.pem");
        Path text = Files.writeString(dir.resolve("text.pem"), "not a pem file\n");
        Path encrypted = TestPki.writeKey(dir.resolve("encrypted.pem"), server.key(), KeyFormat.ENCRYPTED_PKCS8);

        assertThatThrownBy(() -> TlsIdentity.load(missing, key)).hasMessage("--tls-cert " + missing + ": no such file");
        assertThatThrownBy(() -> TlsIdentity.load(chain, missing))
                .hasMessage("--tls-key " + missing + ": no such file");
        assertThatThrownBy(() -> TlsIdentity.load(text, key)).hasMessageStartingWith("--tls-cert " + text);
        assertThatThrownBy(() -> TlsIdentity.load(chain, text))
                .hasMessageStartingWith("--tls-key " + text + " holds no private key");
        assertThatThrownBy(() -> TlsIdentity.load(chain, chain))
                .hasMessageStartingWith("--tls-key " + chain + " holds no private key");
        assertThatThrownBy(() -> TlsIdentity.load(key, key)).hasMessageStartingWith("--tls-cert " + key);
        assertThatThrownBy(() -> TlsIdentity.load(chain, encrypted))
                .hasMessageStartingWith("--tls-key " + encrypted + " is encrypted");
    }
}
