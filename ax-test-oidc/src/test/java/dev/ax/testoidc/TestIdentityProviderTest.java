package dev.ax.testoidc;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.util.JSONObjectUtils;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.ax.testoidc.TestIdentityProviderProcess.Client;
import dev.ax.testoidc.TestIdentityProviderProcess.User;
import java.io.File;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider is a real one: the authorization code flow with PKCE, driven the way a browser and a relying party
 * would, over HTTP only.
 */
class TestIdentityProviderTest {

    private static final String REDIRECT_URI = "http://127.0.0.1:7070/login/sso/callback";
    private static final String CLIENT_ID = "ax";
    private static final String CLIENT_SECRET = "s3cret";

    @TempDir
    static Path workDir;

    private static TestIdentityProviderProcess provider;
    private static long startMillis;

    @BeforeAll
    static void startProvider() {
        long started = System.nanoTime();
        provider = TestIdentityProviderProcess.start(
                workDir,
                List.of(new Client(CLIENT_ID, CLIENT_SECRET, List.of(REDIRECT_URI), true)),
                List.of(
                        new User("alice", "pw-alice", List.of("data-eng", "ops"), "alice@example.com"),
                        new User("bob", "pw-bob", List.of(), null)));
        startMillis = Duration.ofNanos(System.nanoTime() - started).toMillis();
        System.out.println("the OpenID provider answered " + startMillis + " ms after start at " + provider.issuer());
    }

    @AfterAll
    static void stopProvider() {
        if (provider != null) {
            provider.close();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void the_discovery_document_names_the_issuer_its_endpoints_and_what_it_supports() throws Exception {
        Map<String, Object> discovery = json(get(provider.issuer() + "/.well-known/openid-configuration"));

        assertThat(discovery)
                .containsEntry("issuer", provider.issuer())
                .containsEntry("authorization_endpoint", provider.issuer() + "/oauth2/authorize")
                .containsEntry("token_endpoint", provider.issuer() + "/oauth2/token")
                .containsEntry("jwks_uri", provider.issuer() + "/oauth2/jwks")
                .containsEntry("userinfo_endpoint", provider.issuer() + "/userinfo")
                .containsEntry("end_session_endpoint", provider.issuer() + "/connect/logout");
        assertThat((List<Object>) discovery.get("token_endpoint_auth_methods_supported"))
                .contains("client_secret_basic", "client_secret_post");
        assertThat((List<Object>) discovery.get("code_challenge_methods_supported"))
                .contains("S256");
        assertThat((List<Object>) discovery.get("id_token_signing_alg_values_supported"))
                .contains("RS256");
    }

    @Test
    void a_user_signs_in_with_pkce_and_the_id_token_carries_their_groups() throws Exception {
        Browser browser = new Browser();
        Pkce pkce = Pkce.create();
        String code = browser.signIn("alice", "pw-alice", "state-1", "nonce-1", pkce);

        HttpResponse<String> token = tokenRequest(code, pkce.verifier(), true);

        assertThat(token.statusCode()).as(token.body()).isEqualTo(200);
        Map<String, Object> tokens = json(token.body());
        assertThat(tokens).containsKeys("access_token", "id_token").containsEntry("token_type", "Bearer");

        SignedJWT idToken = SignedJWT.parse((String) tokens.get("id_token"));
        assertThat(idToken.getHeader().getAlgorithm()).isEqualTo(JWSAlgorithm.RS256);
        RSAKey key = JWKSet.parse(get(provider.issuer() + "/oauth2/jwks"))
                .getKeyByKeyId(idToken.getHeader().getKeyID())
                .toRSAKey();
        assertThat(idToken.verify(new RSASSAVerifier(key)))
                .as("signature verifies against the JWKS")
                .isTrue();

        JWTClaimsSet claims = idToken.getJWTClaimsSet();
        assertThat(claims.getIssuer()).isEqualTo(provider.issuer());
        assertThat(claims.getAudience()).containsExactly(CLIENT_ID);
        assertThat(claims.getSubject()).isEqualTo("alice");
        assertThat(claims.getStringClaim("nonce")).isEqualTo("nonce-1");
        assertThat(claims.getStringClaim("preferred_username")).isEqualTo("alice");
        assertThat(claims.getStringClaim("email")).isEqualTo("alice@example.com");
        assertThat(claims.getStringListClaim("groups")).containsExactly("data-eng", "ops");
        assertThat(claims.getExpirationTime()).isInTheFuture();
    }

    @Test
    void the_user_info_endpoint_names_the_same_user_and_groups() throws Exception {
        Browser browser = new Browser();
        Pkce pkce = Pkce.create();
        String code = browser.signIn("bob", "pw-bob", "state-2", "nonce-2", pkce);
        String accessToken =
                (String) json(tokenRequest(code, pkce.verifier(), true).body()).get("access_token");

        HttpResponse<String> userInfo = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(provider.issuer() + "/userinfo"))
                                .header("Authorization", "Bearer " + accessToken)
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());

        assertThat(userInfo.statusCode()).as(userInfo.body()).isEqualTo(200);
        assertThat(json(userInfo.body()))
                .containsEntry("sub", "bob")
                .containsEntry("preferred_username", "bob")
                .containsEntry("groups", List.of())
                .doesNotContainKey("email");
    }

    @Test
    void a_client_may_send_its_secret_in_the_form_body() throws Exception {
        Browser browser = new Browser();
        Pkce pkce = Pkce.create();
        String code = browser.signIn("alice", "pw-alice", "state-3", "nonce-3", pkce);

        HttpResponse<String> token = tokenRequest(code, pkce.verifier(), false);

        assertThat(token.statusCode()).as(token.body()).isEqualTo(200);
        assertThat(json(token.body())).containsKey("id_token");
    }

    @Test
    void a_token_request_with_the_wrong_code_verifier_is_refused() throws Exception {
        Browser browser = new Browser();
        Pkce pkce = Pkce.create();
        String code = browser.signIn("alice", "pw-alice", "state-4", "nonce-4", pkce);

        HttpResponse<String> token = tokenRequest(code, Pkce.create().verifier(), false);

        assertThat(token.statusCode()).isEqualTo(400);
        assertThat(json(token.body())).containsEntry("error", "invalid_grant").doesNotContainKey("id_token");
    }

    @Test
    void an_authorization_request_without_a_code_challenge_is_refused() throws Exception {
        Browser browser = new Browser();
        browser.logIn("alice", "pw-alice");

        HttpResponse<String> response = browser.get(provider.issuer() + "/oauth2/authorize?"
                + form(Map.of(
                        "response_type",
                        "code",
                        "client_id",
                        CLIENT_ID,
                        "redirect_uri",
                        REDIRECT_URI,
                        "scope",
                        "openid profile email",
                        "state",
                        "state-5")));

        assertThat(response.statusCode()).isEqualTo(302);
        String location = response.headers().firstValue("Location").orElseThrow();
        assertThat(location).startsWith(REDIRECT_URI + "?");
        assertThat(query(location)).containsEntry("error", "invalid_request").doesNotContainKey("code");
    }

    @Test
    void a_wrong_password_leaves_the_user_on_the_login_form() throws Exception {
        Browser browser = new Browser();
        HttpResponse<String> login = browser.get(provider.issuer() + "/login");

        HttpResponse<String> posted = browser.post(
                provider.issuer() + "/login",
                Map.of("username", "alice", "password", "not-her-password", "_csrf", csrfToken(login.body())));

        assertThat(posted.statusCode()).isEqualTo(302);
        assertThat(posted.headers().firstValue("Location")).contains(provider.issuer() + "/login?error");
    }

    @Test
    void the_provider_runs_on_its_own_dependencies_and_not_on_the_whole_test_class_path() {
        List<String> childClassPath =
                List.of(TestIdentityProviderProcess.providerClassPath().split(File.pathSeparator));
        List<String> jarNames = childClassPath.stream()
                .map(entry -> Path.of(entry).getFileName().toString())
                .toList();

        assertThat(jarNames)
                .anyMatch(name -> name.startsWith("tomcat-embed-core-"))
                .anyMatch(name -> name.startsWith("spring-security-oauth2-authorization-server-"))
                .noneMatch(name -> name.startsWith("junit-jupiter-") || name.startsWith("assertj-core-"));
        assertThat(childClassPath)
                .doesNotContain(
                        Path.of("target", "test-classes").toAbsolutePath().toString());
    }

    /** What a browser does: keeps cookies, follows the provider's redirects, stops at the client's redirect URI. */
    private static final class Browser {
        private final HttpClient http = HttpClient.newBuilder()
                .cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(5))
                .build();

        /** Runs the front channel of the flow and returns the authorization code handed to the redirect URI. */
        String signIn(String username, String password, String state, String nonce, Pkce pkce) throws Exception {
            String authorize = provider.issuer() + "/oauth2/authorize?"
                    + form(Map.of(
                            "response_type",
                            "code",
                            "client_id",
                            CLIENT_ID,
                            "redirect_uri",
                            REDIRECT_URI,
                            "scope",
                            "openid profile email",
                            "state",
                            state,
                            "nonce",
                            nonce,
                            "code_challenge",
                            pkce.challenge(),
                            "code_challenge_method",
                            "S256"));
            HttpResponse<String> response = get(authorize);
            assertThat(response.statusCode()).isEqualTo(302);
            String loginPage = location(response);
            assertThat(loginPage).isEqualTo(provider.issuer() + "/login");

            HttpResponse<String> form = get(loginPage);
            assertThat(form.statusCode()).isEqualTo(200);
            assertThat(form.body()).contains("name=\"username\"", "name=\"password\"");
            response = post(
                    loginPage, Map.of("username", username, "password", password, "_csrf", csrfToken(form.body())));

            // Back to the authorization request, then to the client: no consent page in between.
            for (int hops = 0; hops < 5; hops++) {
                assertThat(response.statusCode()).as(response.body()).isEqualTo(302);
                String next = location(response);
                if (next.startsWith(REDIRECT_URI)) {
                    Map<String, String> query = query(next);
                    assertThat(query).containsEntry("state", state).containsKey("code");
                    return query.get("code");
                }
                assertThat(next).startsWith(provider.issuer());
                response = get(next);
            }
            throw new AssertionError("never redirected to " + REDIRECT_URI);
        }

        void logIn(String username, String password) throws Exception {
            HttpResponse<String> form = get(provider.issuer() + "/login");
            HttpResponse<String> posted = post(
                    provider.issuer() + "/login",
                    Map.of("username", username, "password", password, "_csrf", csrfToken(form.body())));
            assertThat(posted.statusCode()).isEqualTo(302);
            assertThat(location(posted)).doesNotContain("error").doesNotEndWith("/login");
        }

        HttpResponse<String> get(String uri) throws Exception {
            return http.send(
                    HttpRequest.newBuilder(URI.create(uri))
                            .header("Accept", "text/html")
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> post(String uri, Map<String, String> fields) throws Exception {
            return http.send(
                    HttpRequest.newBuilder(URI.create(uri))
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .header("Accept", "text/html")
                            .POST(HttpRequest.BodyPublishers.ofString(form(fields)))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        private static String location(HttpResponse<?> response) {
            String location = response.headers().firstValue("Location").orElseThrow();
            return URI.create(provider.issuer() + "/").resolve(location).toString();
        }
    }

    /** The back channel: the client exchanges the code, authenticating with Basic or with form fields. */
    private static HttpResponse<String> tokenRequest(String code, String verifier, boolean basic) throws Exception {
        Map<String, String> fields = new LinkedHashMap<>(Map.of(
                "grant_type", "authorization_code",
                "code", code,
                "redirect_uri", REDIRECT_URI,
                "code_verifier", verifier));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(provider.issuer() + "/oauth2/token"))
                .header("Content-Type", "application/x-www-form-urlencoded");
        if (basic) {
            request.header(
                    "Authorization",
                    "Basic "
                            + Base64.getEncoder()
                                    .encodeToString(
                                            (CLIENT_ID + ":" + CLIENT_SECRET).getBytes(StandardCharsets.UTF_8)));
        } else {
            fields.put("client_id", CLIENT_ID);
            fields.put("client_secret", CLIENT_SECRET);
        }
        return HttpClient.newHttpClient()
                .send(
                        request.POST(HttpRequest.BodyPublishers.ofString(form(fields)))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private record Pkce(String verifier, String challenge) {
        static Pkce create() throws Exception {
            byte[] random = new byte[32];
            new SecureRandom().nextBytes(random);
            String verifier = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
            return new Pkce(verifier, Base64.getUrlEncoder().withoutPadding().encodeToString(digest));
        }
    }

    private static String csrfToken(String loginPage) {
        Matcher m = Pattern.compile("name=\"_csrf\"[^>]*value=\"([^\"]+)\"").matcher(loginPage);
        assertThat(m.find()).as("the login form carries a CSRF token").isTrue();
        return m.group(1);
    }

    private static String get(String uri) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(URI.create(uri)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(uri).isEqualTo(200);
        return response.body();
    }

    private static Map<String, Object> json(String body) throws Exception {
        return JSONObjectUtils.parse(body);
    }

    private static String form(Map<String, String> fields) {
        return fields.entrySet().stream()
                .map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                .collect(Collectors.joining("&"));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static Map<String, String> query(String uri) {
        Map<String, String> query = new LinkedHashMap<>();
        String raw = URI.create(uri).getRawQuery();
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            query.put(
                    URLDecoder.decode(name, StandardCharsets.UTF_8), URLDecoder.decode(value, StandardCharsets.UTF_8));
        }
        return query;
    }
}
