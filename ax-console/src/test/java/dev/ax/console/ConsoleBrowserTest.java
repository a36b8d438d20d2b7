package dev.ax.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.store.NewRun;
import dev.ax.store.RunRow;
import dev.ax.store.RunStore;
import dev.ax.store.TaskRow;
import dev.ax.store.TestDatabases;
import dev.ax.store.Tx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser (headless Chromium) against a real node with an executor: what
 * a person does, click by click. Waits are explicit (WebDriverWait), never sleeps.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {
    static final String SEED = """
            {"taskName":"daily_report","trigger":{"type":"cron","expression":"0 2 * * *","timezone":"Asia/Shanghai"},\
            "action":{"type":"shell","command":"echo report for {{yesterday}}"},\
            "policy":{"maxRetries":2,"retryIntervalSeconds":300,"timeoutSeconds":1200}}""";

    @TempDir
    static Path profile;

    static ConsoleServer server;
    static ChromeDriver driver;

    @BeforeAll
    static void start() {
        server = new ConsoleServer(TestDatabases.h2());
        driver = Browser.start(profile);
    }

    @AfterAll
    static void stop() {
        if (driver != null) {
            driver.quit();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void loggedOut() {
        driver.get(url("/login"));
        driver.manage().deleteAllCookies();
        driver.manage().window().setSize(new Dimension(1366, 900));
    }

    @org.junit.jupiter.api.AfterEach
    void noPageLoggedAnError() {
        // The editor answers a refused definition with 400 and the form with its errors, by design; Chromium logs that
        // status.
        assertThat(Browser.consoleErrors(driver))
                .as("errors in the browser console")
                .filteredOn(m -> !m.matches(".*/(new-task|edit) - Failed to load resource: .* status of 400 .*"))
                .isEmpty();
    }

    static String url(String path) {
        return server.url().resolve(path).toString();
    }

    static WebDriverWait waiting() {
        return new WebDriverWait(driver, Duration.ofSeconds(30));
    }

    static void login(String token) {
        driver.get(url("/login"));
        driver.findElement(By.id("token")).sendKeys(token);
        driver.findElement(By.id("login")).click();
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("who")));
    }

    static String text(String id) {
        return driver.findElement(By.id(id)).getText();
    }

    static void editor(String json) {
        WebElement area = driver.findElement(By.id("definition"));
        area.clear();
        area.sendKeys(json);
        driver.findElement(By.id("save")).click();
    }

    @Test
    @Order(1)
    void an_admin_creates_the_seed_task_triggers_it_and_watches_the_run_succeed_with_its_log() {
        login(ConsoleServer.ADMIN);
        driver.get(url("/tasks"));
        driver.findElement(By.id("new-task")).click();
        editor(SEED);

        waiting().until(ExpectedConditions.urlToBe(url("/tasks/daily_report")));
        assertThat(text("flash")).contains("created daily_report v1");
        assertThat(driver.findElements(By.cssSelector("#next-fires li"))).hasSize(10);
        assertThat(text("definition")).contains("Asia/Shanghai").contains("echo report for {{yesterday}}");

        driver.findElement(By.id("params")).sendKeys("reason=console test");
        driver.findElement(By.id("trigger")).click();
        waiting().until(ExpectedConditions.urlMatches("/runs/\\d+$"));
        waiting().until(ExpectedConditions.textToBe(By.id("run-state"), "SUCCESS"));
        waiting()
                .until(ExpectedConditions.textMatches(
                        By.id("log"), Pattern.compile("report for \\d{4}-\\d{2}-\\d{2}")));
        assertThat(text("exit-code")).startsWith("0");
        assertThat(text("events"))
                .contains("CREATED")
                .contains("CLAIMED")
                .contains("STARTED")
                .contains("SUCCEEDED");
        assertThat(text("facts")).contains("reason=console test");
        Browser.screenshot(driver, "run");

        // Edit: a new version whose diff the history shows.
        driver.get(url("/tasks/daily_report"));
        driver.findElement(By.id("edit")).click();
        // The task page has an element #definition too: wait for the editor before reading it.
        waiting().until(ExpectedConditions.urlContains("/tasks/daily_report/edit"));
        String current = driver.findElement(By.id("definition")).getDomProperty("value");
        editor(current.replace("\"timeoutSeconds\" : 1200", "\"timeoutSeconds\" : 1800"));
        waiting().until(ExpectedConditions.urlToBe(url("/tasks/daily_report")));
        assertThat(text("flash")).contains("saved daily_report v2");
        assertThat(text("versions"))
                .contains("policy.timeoutSeconds")
                .contains("1200")
                .contains("1800");
        Browser.screenshot(driver, "task");
    }

    @Test
    @Order(2)
    void the_log_follows_a_running_job_without_reloading_the_page() {
        server.node
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "slow_count",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "echo first; sleep 3; echo second")),
                        "test");
        long id = server.node.tasks().trigger("slow_count", Map.of(), Cause.MANUAL, "test");
        login(ConsoleServer.VIEWER);
        driver.get(url("/runs/" + id));
        assertThat(text("run-state")).isNotEqualTo("SUCCESS");
        driver.executeScript("window.axMarker = 'same page';");

        waiting().until(ExpectedConditions.textMatches(By.id("log"), Pattern.compile("first")));
        waiting().until(ExpectedConditions.textToBe(By.id("run-state"), "SUCCESS"));
        waiting().until(ExpectedConditions.textMatches(By.id("log"), Pattern.compile("first\\s+second")));
        // Still the same document: the lines and the new state came over the event stream, not a reload.
        assertThat(driver.executeScript("return window.axMarker")).isEqualTo("same page");
    }

    @Test
    @Order(3)
    void an_admin_approves_a_run_waiting_for_approval_with_a_comment() {
        server.node
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "fix_orders",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "echo orders fixed"),
                                "policy",
                                Map.of("approval", Map.of())),
                        "test");
        login(ConsoleServer.ADMIN);
        driver.get(url("/tasks/fix_orders"));
        driver.findElement(By.id("trigger")).click();
        waiting().until(ExpectedConditions.textToBe(By.id("run-state"), "WAITING_APPROVAL"));
        assertThat(text("approval")).contains("any operator or admin");

        driver.findElement(By.id("comment")).sendKeys("checked the order ids");
        driver.findElement(By.id("approve")).click();
        waiting().until(ExpectedConditions.textMatches(By.id("flash"), Pattern.compile("approved run \\d+")));
        waiting().until(ExpectedConditions.textToBe(By.id("run-state"), "SUCCESS"));
        assertThat(text("events")).contains("APPROVED").contains("approved by admin: checked the order ids");
        assertThat(text("log")).contains("orders fixed");
    }

    @Test
    @Order(4)
    void a_bad_cron_expression_is_shown_next_to_the_editor_and_nothing_is_saved() {
        login(ConsoleServer.ADMIN);
        driver.get(url("/new-task"));
        String bad = SEED.replace("daily_report", "bad_cron").replace("0 2 * * *", "61 * * * *");
        editor(bad);

        WebElement errors = waiting().until(ExpectedConditions.visibilityOfElementLocated(By.id("errors")));
        assertThat(errors.getText()).contains("trigger.expression");
        assertThat(driver.findElement(By.cssSelector(".field-error .field")).getText())
                .isEqualTo("trigger.expression");
        assertThat(driver.findElement(By.cssSelector(".field-error .reason")).getText())
                .isNotBlank();
        WebElement area = driver.findElement(By.id("definition"));
        assertThat(area.getDomProperty("value")).contains("61 * * * *");
        assertThat(area.getDomAttribute("aria-invalid")).isEqualTo("true");
        // Beside the editor at laptop width, not somewhere else on the page.
        assertThat(errors.getLocation().getX())
                .isGreaterThan(area.getLocation().getX() + area.getSize().getWidth() - 1);
        assertThat(errors.getLocation().getY()).isLessThan(area.getLocation().getY() + 200);
        Browser.screenshot(driver, "editor-errors");
        Optional<TaskRow> saved = server.store.tx(tx -> server.store.tasks().find(tx, "bad_cron"));
        assertThat(saved).isEmpty();
    }

    @Test
    @Order(5)
    void a_viewer_is_offered_no_action() {
        server.node
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "gated",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "echo gated"),
                                "policy",
                                Map.of("approval", Map.of())),
                        "test");
        long waiting = server.node.tasks().trigger("gated", Map.of(), Cause.MANUAL, "admin");
        long finished = latestRunOf("daily_report");
        login(ConsoleServer.VIEWER);

        driver.get(url("/tasks"));
        assertThat(driver.findElements(By.id("new-task"))).isEmpty();
        for (String page : List.of("/tasks/daily_report", "/runs/" + finished, "/runs/" + waiting)) {
            driver.get(url(page));
            assertThat(driver.findElements(By.cssSelector("form.action")))
                    .as(page)
                    .isEmpty();
            assertThat(driver.findElements(By.cssSelector("main button")))
                    .as(page)
                    .isEmpty();
        }
        assertThat(text("run-state")).isEqualTo("WAITING_APPROVAL");
        assertThat(text("approval")).contains("only any operator or admin of the task's team may decide");
    }

    @Test
    @Order(6)
    void the_dashboard_counts_what_ran_and_fits_a_phone() {
        server.node
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "flaky_export",
                                "trigger",
                                Map.of("type", "interval", "intervalSeconds", 3600),
                                "action",
                                Map.of("type", "shell", "command", "echo exporting; echo 'disk full' >&2; exit 3")),
                        "test");
        long failed = server.node.tasks().trigger("flaky_export", Map.of(), Cause.MANUAL, "test");
        waitForState(failed, RunState.FAILED);
        int hours = history();
        login(ConsoleServer.OPERATOR);
        driver.get(url("/"));
        assertThat(text("card-outcomes")).contains("SUCCESS").contains("FAILED");
        assertThat(driver.findElements(By.cssSelector("svg.chart rect.bar"))).hasSize(DashboardPage.WINDOW_HOURS);
        long barsWithRuns = driver.findElements(By.cssSelector("svg.chart rect.bar")).stream()
                .filter(r -> Integer.parseInt(r.getDomAttribute("height")) > 0)
                .count();
        assertThat(barsWithRuns).isGreaterThanOrEqualTo(hours);
        assertThat(driver.findElement(By.cssSelector("svg.chart polyline.lag")).getDomAttribute("points"))
                .isNotBlank();
        assertThat(driver.findElement(By.id("failed-h")).isDisplayed()).isTrue();
        assertThat(driver.findElements(By.cssSelector("a[href='/runs/" + failed + "']")))
                .isNotEmpty();
        Browser.screenshot(driver, "dashboard");

        // A phone: its width, touch-style overlay scrollbars.
        driver.executeCdpCommand(
                "Emulation.setDeviceMetricsOverride",
                Map.of("width", 390, "height", 844, "deviceScaleFactor", 1, "mobile", true));
        driver.navigate().refresh();
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("card-outcomes")));
        Object wide = driver.executeScript("""
                const w = document.documentElement.clientWidth;
                return [...document.querySelectorAll('body *')]
                    .filter(e => e.getBoundingClientRect().right > w + 1 && !e.closest('.table-wrap'))
                    .map(e => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className).slice(0, 5).join(', ');""");
        long overflow = (Long) driver.executeScript(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth");
        assertThat(overflow)
                .as("horizontal overflow at phone width, from: " + wide)
                .isLessThanOrEqualTo(0);
        Browser.screenshot(driver, "dashboard-phone");
        driver.executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
    }

    /**
     * A day of finished cron runs of daily_report, a few per hour, some failed and some fired late,
     * written straight into the store (back-dated), so the chart has hours to draw. Returns how many
     * past hours got runs.
     */
    static int history() {
        return history(server);
    }

    /** The same day of history on {@code server}. */
    static int history(ConsoleServer server) {
        TaskRow task = server.store
                .tx(tx -> server.store.tasks().find(tx, "daily_report"))
                .orElseThrow();
        Instant now = server.store.tx(Tx::now);
        int hours = 20;
        for (int h = 1; h <= hours; h++) {
            int runs = 1 + (h * 7) % 5;
            for (int i = 0; i < runs; i++) {
                Instant created = now.minus(Duration.ofHours(h)).plusSeconds(i * 300L);
                RunState state = (h + i) % 9 == 0 ? RunState.FAILED : RunState.SUCCESS;
                long lagMillis = 40L + (h * 37L + i * 11L) % 400;
                server.store.tx(tx -> {
                    long id = server.store
                            .runs()
                            .create(
                                    tx,
                                    new NewRun(
                                            task.id(),
                                            task.name(),
                                            task.version(),
                                            Cause.CRON,
                                            created.toString(),
                                            created.minusMillis(lagMillis),
                                            Map.of(),
                                            RunState.READY,
                                            1,
                                            "default",
                                            "scheduler",
                                            "console-test-node",
                                            null,
                                            null,
                                            null))
                            .orElseThrow();
                    tx.update(
                            "UPDATE ax_instance SET state = ?, created_at = ?, started_at = ?, finished_at = ?, exit_code = ?"
                                    + " WHERE id = ?",
                            state,
                            created,
                            created.plusMillis(200),
                            created.plusMillis(900),
                            state == RunState.SUCCESS ? 0 : 1,
                            id);
                    return id;
                });
            }
        }
        return hours;
    }

    static long latestRunOf(String task) {
        List<RunRow> rows = server.store.tx(
                tx -> server.store.runs().list(tx, new RunStore.RunFilter(task, null, null, null), Long.MAX_VALUE, 1));
        return rows.getFirst().id();
    }

    static void waitForState(long id, RunState state) {
        waitForState(server, id, state);
    }

    static void waitForState(ConsoleServer server, long id, RunState state) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> server.store
                                .tx(tx -> server.store.runs().find(tx, id))
                                .orElseThrow()
                                .state()
                        == state);
    }
}
