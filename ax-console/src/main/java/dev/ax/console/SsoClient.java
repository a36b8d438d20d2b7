package dev.ax.console;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jwt.JWT;
import com.nimbusds.oauth2.sdk.AuthorizationCode;
import com.nimbusds.oauth2.sdk.AuthorizationCodeGrant;
import com.nimbusds.oauth2.sdk.ErrorObject;
import com.nimbusds.oauth2.sdk.GeneralException;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.ResponseType;
import com.nimbusds.oauth2.sdk.Scope;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.TokenResponse;
import com.nimbusds.oauth2.sdk.auth.ClientSecretBasic;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.id.ClientID;
import com.nimbusds.oauth2.sdk.id.Issuer;
import com.nimbusds.oauth2.sdk.id.State;
import com.nimbusds.oauth2.sdk.pkce.CodeChallengeMethod;
import com.nimbusds.oauth2.sdk.pkce.CodeVerifier;
import com.nimbusds.openid.connect.sdk.AuthenticationRequest;
import com.nimbusds.openid.connect.sdk.Nonce;
import com.nimbusds.openid.connect.sdk.OIDCTokenResponse;
import com.nimbusds.openid.connect.sdk.OIDCTokenResponseParser;
import com.nimbusds.openid.connect.sdk.claims.IDTokenClaimsSet;
import com.nimbusds.openid.connect.sdk.op.OIDCProviderMetadata;
import com.nimbusds.openid.connect.sdk.validators.IDTokenValidator;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The OpenID Connect client of the console's single sign-on, on Nimbus' SDK: the authorization code flow with PKCE
 * (S256), a state and a nonce per sign-in, the code exchanged with the client's secret, and the ID token's signature,
 * issuer, audience, expiry and nonce checked against the provider's published keys. The provider's metadata is read
 * when first needed (a provider down when AX starts delays no start) and kept.
 */
final class SsoClient {
    private final SsoConfig config;
    private volatile Provider provider;

    private record Provider(OIDCProviderMetadata metadata, IDTokenValidator validator) {}

    /** A sign-in sent to the provider: where the browser goes, and what the answer is checked with. */
    record Begun(URI authorizeUri, String state, String verifier, String nonce) {}

    /** Who signed in: the name recorded as the actor, and their groups for the role rules. */
    record Identity(String username, List<String> groups) {}

    /** The provider refused, or its answer did not check out; the message is for the person signing in. */
    static final class SsoException extends RuntimeException {
        SsoException(String message) {
            super(message);
        }

        SsoException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    SsoClient(SsoConfig config) {
        this.config = config;
    }

    Begun begin() {
        State state = new State();
        Nonce nonce = new Nonce();
        CodeVerifier verifier = new CodeVerifier();
        URI authorize = new AuthenticationRequest.Builder(
                        new ResponseType(ResponseType.Value.CODE),
                        new Scope(config.scopes().toArray(String[]::new)),
                        new ClientID(config.clientId()),
                        config.redirectUri())
                .endpointURI(provider().metadata().getAuthorizationEndpointURI())
                .state(state)
                .nonce(nonce)
                .codeChallenge(verifier, CodeChallengeMethod.S256)
                .build()
                .toURI();
        return new Begun(authorize, state.getValue(), verifier.getValue(), nonce.getValue());
    }

    /** Exchanges the code for tokens and checks the ID token; the person it names, with their groups. */
    Identity finish(String code, String verifier, String nonce) {
        Provider p = provider();
        TokenRequest request = new TokenRequest(
                p.metadata().getTokenEndpointURI(),
                new ClientSecretBasic(new ClientID(config.clientId()), new Secret(config.clientSecret())),
                new AuthorizationCodeGrant(
                        new AuthorizationCode(code), config.redirectUri(), new CodeVerifier(verifier)));
        TokenResponse response;
        try {
            response = OIDCTokenResponseParser.parse(request.toHTTPRequest().send());
        } catch (IOException | ParseException e) {
            throw new SsoException(
                    "the identity provider's token endpoint did not answer as expected: " + e.getMessage(), e);
        }
        if (!response.indicatesSuccess()) {
            ErrorObject error = response.toErrorResponse().getErrorObject();
            throw new SsoException("the identity provider refused the sign-in: " + error.getCode()
                    + (error.getDescription() == null ? "" : " (" + error.getDescription() + ")"));
        }
        JWT idToken = ((OIDCTokenResponse) response.toSuccessResponse())
                .getOIDCTokens()
                .getIDToken();
        IDTokenClaimsSet claims;
        try {
            claims = p.validator().validate(idToken, new Nonce(nonce));
        } catch (BadJOSEException | JOSEException e) {
            throw new SsoException("the ID token did not check out: " + e.getMessage(), e);
        }
        return identity(claims);
    }

    private Identity identity(IDTokenClaimsSet claims) {
        Object name = claims.getClaim(config.usernameClaim());
        if (!(name instanceof String username) || username.isBlank()) {
            throw new SsoException("the ID token has no " + config.usernameClaim() + " claim to name you by"
                    + " (usernameClaim in the server's --oidc-config)");
        }
        List<String> groups = new ArrayList<>();
        Object raw = claims.getClaim(config.groupsClaim());
        if (raw instanceof List<?> list) {
            list.forEach(g -> groups.add(String.valueOf(g)));
        } else if (raw instanceof String one) {
            groups.add(one);
        }
        return new Identity(username, groups);
    }

    private Provider provider() {
        Provider p = provider;
        if (p == null) {
            try {
                OIDCProviderMetadata metadata = OIDCProviderMetadata.resolve(new Issuer(config.issuer()));
                IDTokenValidator validator = new IDTokenValidator(
                        metadata.getIssuer(),
                        new ClientID(config.clientId()),
                        JWSAlgorithm.RS256,
                        metadata.getJWKSetURI().toURL());
                p = new Provider(metadata, validator);
                provider = p;
            } catch (GeneralException | IOException e) {
                throw new SsoException(
                        "the identity provider " + config.issuer() + " cannot be reached: " + e.getMessage(), e);
            }
        }
        return p;
    }
}
