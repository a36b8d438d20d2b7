package dev.ax.testoidc;

import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.SecurityContext;
import dev.ax.testoidc.TestIdentityProviderProcess.Client;
import dev.ax.testoidc.TestIdentityProviderProcess.User;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.OAuth2AuthorizationServerConfiguration;
import org.springframework.security.config.annotation.web.configurers.oauth2.server.authorization.OAuth2AuthorizationServerConfigurer;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.core.oidc.OidcScopes;
import org.springframework.security.oauth2.core.oidc.OidcUserInfo;
import org.springframework.security.oauth2.core.oidc.endpoint.OidcParameterNames;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.server.authorization.client.InMemoryRegisteredClientRepository;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClient;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClientRepository;
import org.springframework.security.oauth2.server.authorization.oidc.authentication.OidcUserInfoAuthenticationContext;
import org.springframework.security.oauth2.server.authorization.settings.AuthorizationServerSettings;
import org.springframework.security.oauth2.server.authorization.settings.ClientSettings;
import org.springframework.security.oauth2.server.authorization.token.JwtEncodingContext;
import org.springframework.security.oauth2.server.authorization.token.OAuth2TokenCustomizer;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.LoginUrlAuthenticationEntryPoint;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.MediaTypeRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real OpenID Connect provider for tests: Spring Authorization Server with Spring Security's form login, configured
 * entirely by the JSON file named by the first argument:
 *
 * <pre>{@code
 * {"port": 0, "issuer": "http://127.0.0.1:PORT",
 *  "clients": [{"clientId": "ax", "clientSecret": "s3cret",
 *               "redirectUris": ["http://127.0.0.1:7070/login/sso/callback"], "requirePkce": true}],
 *  "users": [{"username": "alice", "password": "pw-alice", "groups": ["data-eng"], "email": "alice@example.com"}]}
 * }</pre>
 *
 * With port 0 it picks a free port and the issuer, which must then be left out, is {@code http://127.0.0.1:PORT}; it
 * prints {@code TestIdentityProvider ready at ISSUER} once it serves. It listens on 127.0.0.1 only, signs with an RS256
 * key made at start, and logs at WARN. Tests start it through {@link TestIdentityProviderProcess}, in a JVM of its own.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class TestIdentityProvider {

    /** The configuration file. {@code parentPid}, optional: the provider exits when that process does. */
    record Config(int port, String issuer, Long parentPid, List<Client> clients, List<User> users) {
        Config {
            clients = clients == null ? List.of() : List.copyOf(clients);
            users = users == null ? List.of() : List.copyOf(users);
        }
    }

    private final Map<String, User> usersByName;

    TestIdentityProvider(Config config) {
        this.usersByName = config.users().stream().collect(Collectors.toMap(User::username, Function.identity()));
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: TestIdentityProvider CONFIG.json");
            System.exit(2);
        }
        Path configFile = Path.of(args[0]).toAbsolutePath();
        Config config = resolvePort(JsonMapper.builder().build().readValue(configFile.toFile(), Config.class));
        if (config.parentPid() != null) {
            // Never outlive the test JVM that started this one, even when it is killed and cannot stop us.
            ProcessHandle.of(config.parentPid())
                    .ifPresentOrElse(parent -> parent.onExit().thenRun(() -> System.exit(0)), () -> System.exit(0));
        }

        SpringApplication application = new SpringApplication(TestIdentityProvider.class);
        application.addInitializers(context -> context.getBeanFactory().registerSingleton("config", config));
        // Command-line properties outrank the environment, so SERVER_PORT and the like of the caller do not apply;
        // spring.config.name keeps an application.properties on the caller's class path from applying either.
        application.run(
                "--server.port=" + config.port(),
                "--server.address=127.0.0.1",
                // The session lives in a cookie only: no ";jsessionid=" in redirects, which the firewall refuses.
                "--server.servlet.session.tracking-modes=cookie",
                "--server.tomcat.basedir=" + configFile.getParent().resolve("oidc-provider-tomcat"),
                "--spring.config.name=ax-test-oidc",
                "--spring.main.banner-mode=off",
                "--spring.main.log-startup-info=false",
                "--logging.level.root=WARN");
        System.out.println("TestIdentityProvider ready at " + config.issuer());
    }

    private static Config resolvePort(Config config) throws IOException {
        if (config.port() != 0) {
            String issuer = config.issuer() != null ? config.issuer() : "http://127.0.0.1:" + config.port();
            return new Config(config.port(), issuer, config.parentPid(), config.clients(), config.users());
        }
        if (config.issuer() != null) {
            throw new IllegalArgumentException("with port 0 leave the issuer out: it is made from the port picked");
        }
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        return new Config(port, "http://127.0.0.1:" + port, config.parentPid(), config.clients(), config.users());
    }

    /** The protocol endpoints; a browser that is not signed in is sent to the login form. */
    @Bean
    @Order(1)
    SecurityFilterChain authorizationServerChain(HttpSecurity http) throws Exception {
        OAuth2AuthorizationServerConfigurer authorizationServer = new OAuth2AuthorizationServerConfigurer();
        AuthorizationServerSettings defaults =
                AuthorizationServerSettings.builder().build();
        // A page a browser asked for, or the authorization endpoint whatever its Accept header; "*/*" alone is not a
        // browser, so /userinfo without a token answers 401.
        MediaTypeRequestMatcher html = new MediaTypeRequestMatcher(MediaType.TEXT_HTML);
        html.setIgnoredMediaTypes(Set.of(MediaType.ALL));
        http.securityMatcher(authorizationServer.getEndpointsMatcher())
                .with(
                        authorizationServer,
                        server -> server.oidc(
                                oidc -> oidc.userInfoEndpoint(userInfo -> userInfo.userInfoMapper(this::userInfo))))
                .authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                .exceptionHandling(exceptions -> exceptions.defaultAuthenticationEntryPointFor(
                        new LoginUrlAuthenticationEntryPoint("/login"),
                        new OrRequestMatcher(
                                html,
                                PathPatternRequestMatcher.withDefaults()
                                        .matcher(defaults.getAuthorizationEndpoint()))));
        return http.build();
    }

    /** Everything else, the login form above all. */
    @Bean
    @Order(2)
    SecurityFilterChain loginChain(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                .formLogin(Customizer.withDefaults());
        return http.build();
    }

    @Bean
    AuthorizationServerSettings authorizationServerSettings(Config config) {
        return AuthorizationServerSettings.builder().issuer(config.issuer()).build();
    }

    @Bean
    RegisteredClientRepository registeredClients(Config config) {
        List<RegisteredClient> clients = config.clients().stream()
                .map(client -> RegisteredClient.withId(UUID.randomUUID().toString())
                        .clientId(client.clientId())
                        .clientSecret("{noop}" + client.clientSecret())
                        .clientAuthenticationMethod(ClientAuthenticationMethod.CLIENT_SECRET_BASIC)
                        .clientAuthenticationMethod(ClientAuthenticationMethod.CLIENT_SECRET_POST)
                        .authorizationGrantType(AuthorizationGrantType.AUTHORIZATION_CODE)
                        .redirectUris(uris -> uris.addAll(client.redirectUris()))
                        .scope(OidcScopes.OPENID)
                        .scope(OidcScopes.PROFILE)
                        .scope(OidcScopes.EMAIL)
                        .clientSettings(ClientSettings.builder()
                                .requireAuthorizationConsent(false)
                                .requireProofKey(client.requirePkce())
                                .build())
                        .build())
                .toList();
        if (clients.isEmpty()) {
            throw new IllegalArgumentException("the configuration names no client");
        }
        return new InMemoryRegisteredClientRepository(clients);
    }

    @Bean
    UserDetailsService users(Config config) {
        return new InMemoryUserDetailsManager(config.users().stream()
                .map(user -> org.springframework.security.core.userdetails.User.withUsername(user.username())
                        .password("{noop}" + user.password())
                        .roles("USER")
                        .build())
                .toList());
    }

    /** A fresh RS256 key for each start: tokens of an earlier run never verify against this one. */
    @Bean
    JWKSource<SecurityContext> jwkSource() throws NoSuchAlgorithmException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        KeyPair keyPair = generator.generateKeyPair();
        RSAKey key = new RSAKey.Builder((RSAPublicKey) keyPair.getPublic())
                .privateKey((RSAPrivateKey) keyPair.getPrivate())
                .keyID(UUID.randomUUID().toString())
                .build();
        return new ImmutableJWKSet<>(new JWKSet(key));
    }

    /** Checks the access tokens the user info endpoint is called with. */
    @Bean
    JwtDecoder jwtDecoder(JWKSource<SecurityContext> jwkSource) {
        return OAuth2AuthorizationServerConfiguration.jwtDecoder(jwkSource);
    }

    /** The ID token names the user: {@code preferred_username}, {@code email} and {@code groups}. */
    @Bean
    OAuth2TokenCustomizer<JwtEncodingContext> idTokenClaims() {
        return context -> {
            if (!OidcParameterNames.ID_TOKEN.equals(context.getTokenType().getValue())) {
                return;
            }
            User user = usersByName.get(context.getPrincipal().getName());
            if (user != null) {
                context.getClaims().claims(claims -> claims.putAll(userClaims(user)));
            }
        };
    }

    private OidcUserInfo userInfo(OidcUserInfoAuthenticationContext context) {
        String username = context.getAuthorization().getPrincipalName();
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("sub", username);
        User user = usersByName.get(username);
        if (user != null) {
            claims.putAll(userClaims(user));
        }
        return new OidcUserInfo(claims);
    }

    private static Map<String, Object> userClaims(User user) {
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("preferred_username", user.username());
        if (user.email() != null) {
            claims.put("email", user.email());
            claims.put("email_verified", true);
        }
        claims.put("groups", List.copyOf(user.groups()));
        return claims;
    }
}
