package dev.ax.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.store.AuditStore.AuditRow;
import dev.ax.store.AuditStore.Filter;
import dev.ax.store.TestDatabases;
import dev.ax.testoidc.TestIdentityProviderProcess;
import dev.ax.testoidc.TestIdentityProviderProcess.Client;
import dev.ax.testoidc.TestIdentityProviderProcess.User;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Single sign-on in a real browser (headless Chromium) against a real OpenID provider (Spring Authorization Server in
 * a child JVM, {@code ax-test-oidc}): the code flow with PKCE end to end, the provider's groups becoming AX roles per
 * team, a person with no mapped group kept out, a made-up callback refused, and every sign-in audited.
 */
class SsoBrowserTest {
    @TempDir
    static Path dir;

    static TestIdentityProviderProcess idp;
    static ConsoleServer server;
    static ChromeDriver driver;

    @BeforeAll
    static void start() throws IOException {
        int port = freePort();
        String callback = "http://127.0.0.1:" + port + "/login/sso/callback";
        idp = TestIdentityProviderProcess.start(
                dir.resolve("idp"),
                List.of(new Client("ax", "ax-client-secret", List.of(callback), true)),
                List.of(
                        new User("alice", "pw-alice", List.of("data-eng"), "alice@example.com"),
                        new User("mallory", "pw-mallory", List.of("marketing"), null)));
        SsoConfig sso = SsoConfig.parse(
                Map.of(
                        "issuer",
                        idp.issuer(),
                        "clientId",
                        "ax",
                        "clientSecret",
                        "ax-client-secret",
                        "redirectUri",
                        callback,
                        "label",
                        "Sign in with Example SSO",
                        "roles",
                        List.of(Map.of("group", "data-eng", "team", "data", "role", "operator"))),
                null);
        server = new ConsoleServer(TestDatabases.h2(), port, sso);
        server.node.teams().create(Map.of("name", "data"), "test");
        server.node.teams().create(Map.of("name", "finance"), "test");
        for (String[] t : new String[][] {{"sync_orders", "data"}, {"ledger", "finance"}}) {
            server.node
                    .tasks()
                    .create(
                            Map.of(
                                    "taskName",
                                    t[0],
                                    "team",
                                    t[1],
                                    "trigger",
                                    Map.of("type", "event"),
                                    "action",
                                    Map.of("type", "shell", "command", "echo " + t[0])),
                            "test");
        }
        driver = Browser.start(dir.resolve("profile"));
    }

    @AfterAll
    static void stop() {
        if (driver != null) {
            driver.quit();
        }
        if (server != null) {
            server.close();
        }
        if (idp != null) {
            idp.close();
        }
    }

    @BeforeEach
    void loggedOut() {
        driver.manage().deleteAllCookies();
        driver.get(idp.issuer() + "/login");
        driver.manage().deleteAllCookies();
    }

    static String url(String path) {
        return server.url() + path;
    }

    static WebDriverWait waiting() {
        return new WebDriverWait(driver, Duration.ofSeconds(20));
    }

    /** From AX's login page through the provider's form and back. */
    static void signIn(String next, String username, String password) {
        driver.get(url("/login?next=" + next));
        driver.findElement(By.id("sso")).click();
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.name("username")));
        assertThat(driver.getCurrentUrl()).startsWith(idp.issuer());
        driver.findElement(By.name("username")).sendKeys(username);
        driver.findElement(By.name("password")).sendKeys(password);
        driver.findElement(By.cssSelector("button[type=submit]")).click();
        waiting().until(d -> d.getCurrentUrl().startsWith(server.url().toString()));
    }

    static List<AuditRow> logins(String actor) {
        return server.node.audit().list(new Filter(actor, null, null, null, null, Long.MAX_VALUE, 20)).stream()
                .filter(r -> r.entry().action().equals("login"))
                .toList();
    }

    @Test
    void a_person_signs_in_at_the_identity_provider_and_gets_the_roles_of_their_groups() {
        driver.get(url("/login"));
        assertThat(driver.findElement(By.id("sso")).getText()).isEqualTo("Sign in with Example SSO");
        assertThat(driver.findElements(By.id("token")))
                .as("token log-in stays, for scripts")
                .hasSize(1);

        signIn("/tasks/sync_orders", "alice", "pw-alice");

        waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("task-name")));
        assertThat(driver.getCurrentUrl()).isEqualTo(url("/tasks/sync_orders"));
        assertThat(driver.findElement(By.id("who")).getText()).isEqualTo("alice (viewer; operator in data)");
        assertThat(driver.findElements(By.id("trigger"))).hasSize(1);
        driver.findElement(By.id("trigger")).click();
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("flash")));

        driver.get(url("/tasks/ledger"));
        assertThat(driver.findElements(By.id("trigger")))
                .as("another team's task offers nothing")
                .isEmpty();

        assertThat(server.node.audit().list(new Filter("alice", null, null, null, null, Long.MAX_VALUE, 20)))
                .anySatisfy(r -> {
                    assertThat(r.entry().action()).isEqualTo("task.trigger");
                    assertThat(r.entry().via()).isEqualTo("sso");
                    assertThat(r.entry().team()).isEqualTo("data");
                });
        assertThat(logins("alice")).anySatisfy(r -> {
            assertThat(r.entry().via()).isEqualTo("sso");
            assertThat(r.entry().outcome()).isEqualTo("ok");
            assertThat(r.entry().message()).contains("groups data-eng");
        });

        // Logging out ends the session on the server: its cookie would open nothing any more.
        driver.findElement(By.id("logout")).click();
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("login")));
        driver.get(url("/tasks"));
        assertThat(driver.getCurrentUrl()).startsWith(url("/login"));
    }

    @Test
    void a_person_whose_groups_map_to_no_role_is_kept_out_and_told_why() {
        signIn("/", "mallory", "pw-mallory");

        waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("login-error")));
        assertThat(driver.findElement(By.id("login-error")).getText())
                .isEqualTo("mallory has no role in AX: none of your groups (marketing) is mapped to one; ask an admin");
        driver.get(url("/tasks"));
        assertThat(driver.getCurrentUrl()).startsWith(url("/login"));
        assertThat(logins("mallory")).singleElement().satisfies(r -> {
            assertThat(r.entry().outcome()).isEqualTo("refused");
            assertThat(r.entry().status()).isEqualTo(403);
        });
    }

    @Test
    void a_callback_that_no_sign_in_here_began_is_refused() {
        driver.get(url("/login/sso/callback?code=made-up&state=made-up"));
        assertThat(driver.findElement(By.id("login-error")).getText())
                .startsWith("this sign-in was already used, took longer than ten minutes");
        driver.get(url("/tasks"));
        assertThat(driver.getCurrentUrl()).startsWith(url("/login"));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
