package dev.ax.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.workflow.WorkflowRunState;
import dev.ax.store.TestDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/** The workflow-run page in a real browser: the graph with each node's state, and a rerun from the failed node. */
class WorkflowBrowserTest {
    @TempDir
    static Path profile;

    static ConsoleServer server;
    static ChromeDriver driver;

    @BeforeAll
    static void start() {
        server = new ConsoleServer(TestDatabases.h2());
        driver = Browser.start(profile);
        driver.manage().window().setSize(new Dimension(1366, 900));
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

    @AfterEach
    void noPageLoggedAnError() {
        assertThat(Browser.consoleErrors(driver))
                .as("errors in the browser console")
                .isEmpty();
    }

    static String url(String path) {
        return server.url().resolve(path).toString();
    }

    static WebDriverWait waiting() {
        return new WebDriverWait(driver, Duration.ofSeconds(30));
    }

    static String text(String id) {
        return driver.findElement(By.id(id)).getText();
    }

    @Test
    void the_run_page_draws_the_graph_with_node_states_and_reruns_from_the_failed_node() throws Exception {
        for (var t : Map.of(
                        "extract",
                        "echo extract",
                        "load",
                        "test -f " + profile.resolve("load.ok") + " || exit 3",
                        "report",
                        "echo report")
                .entrySet()) {
            server.node
                    .tasks()
                    .create(
                            Map.of(
                                    "taskName",
                                    t.getKey(),
                                    "trigger",
                                    Map.of("type", "event"),
                                    "action",
                                    Map.of("type", "shell", "command", t.getValue())),
                            "test");
        }
        server.node
                .workflows()
                .service()
                .create(
                        Map.of(
                                "name",
                                "nightly",
                                "nodes",
                                List.of(
                                        Map.of("name", "extract", "task", "extract"),
                                        Map.of("name", "load", "task", "load"),
                                        Map.of("name", "report", "task", "report")),
                                "edges",
                                List.of(
                                        Map.of("from", "extract", "to", "load"),
                                        Map.of("from", "load", "to", "report"))),
                        "test");
        long run = server.node.workflows().service().trigger("nightly", Map.of(), "test");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> server.node.workflows().service().run(run).run().state() == WorkflowRunState.FAILED);

        driver.get(url("/login"));
        driver.findElement(By.id("token")).sendKeys(ConsoleServer.OPERATOR);
        driver.findElement(By.id("login")).click();
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("who")));

        driver.findElement(By.linkText("Workflows")).click();
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("workflow-runs")));
        assertThat(text("workflows")).contains("nightly");
        driver.findElement(By.linkText("#" + run)).click();

        waiting().until(ExpectedConditions.textToBe(By.id("run-state"), "FAILED"));
        assertThat(text("node-state-extract")).isEqualTo("SUCCESS");
        assertThat(text("node-state-load")).isEqualTo("FAILED");
        assertThat(text("node-state-report")).isEqualTo("SKIPPED");
        assertThat(text("node-report")).contains("upstream load failed");
        // the drawn graph: one box per node, coloured by its state, with the state written in it
        assertThat(driver.findElement(By.id("graph-node-extract")).getDomAttribute("class"))
                .contains("state-success");
        assertThat(driver.findElement(By.id("graph-node-load")).getDomAttribute("class"))
                .contains("state-failed");
        assertThat(driver.findElement(By.id("graph-node-report")).getDomAttribute("class"))
                .contains("state-skipped");
        assertThat(driver.findElement(By.id("graph-node-load")).getText())
                .contains("load · load")
                .contains("FAILED");
        assertThat(driver.findElements(By.cssSelector("#graph path.wf-edge"))).hasSize(2);
        Browser.screenshot(driver, "workflow-run");

        // fix the failing node's condition and rerun from it
        Files.writeString(profile.resolve("load.ok"), "ok");
        new Select(driver.findElement(By.id("from"))).selectByValue("load");
        driver.findElement(By.id("rerun")).click();
        waiting().until(ExpectedConditions.textToBe(By.id("flash"), "workflow run " + run + " runs again from load"));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> server.node.workflows().service().run(run).run().state() == WorkflowRunState.SUCCESS);
        driver.navigate().refresh();
        waiting().until(ExpectedConditions.textToBe(By.id("run-state"), "SUCCESS"));
        assertThat(text("node-state-report")).isEqualTo("SUCCESS");
        assertThat(driver.findElement(By.cssSelector("#node-extract td.num")).getText())
                .isEqualTo("1");
        assertThat(driver.findElement(By.cssSelector("#node-load td.num")).getText())
                .isEqualTo("2");
        // the node's run is a link to its run page
        driver.findElement(By.cssSelector("#node-load a[href^='/runs/']")).click();
        waiting().until(ExpectedConditions.urlMatches("/runs/\\d+$"));
        waiting().until(ExpectedConditions.textToBe(By.id("run-state"), "SUCCESS"));
    }
}
