package dev.ax.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.store.TestDatabases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
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
 * The console as an on-call engineer in Shanghai sees it: a browser that asks for Chinese and lives in Asia/Shanghai,
 * against a server in another zone (the tests run in New York's). Pages in Chinese with the states' codes kept, times
 * in the browser's zone with the offset shown, the API's refusals translated, and the language switch in the header.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleZhBrowserTest {
    @TempDir
    static Path profile;

    static ConsoleServer server;
    static ChromeDriver driver;

    @BeforeAll
    static void start() {
        server = new ConsoleServer(TestDatabases.h2());
        driver = Browser.start(profile, "zh-CN", "Asia/Shanghai");
        server.node.tasks().create(TaskPages.parse(ConsoleBrowserTest.SEED), "test");
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
        // The editor answers a refused definition with 400 and the form with its errors, by design.
        assertThat(Browser.consoleErrors(driver))
                .filteredOn(m -> !m.matches(".*/(new-task|edit) - Failed to load resource: .* status of 400 .*"))
                .isEmpty();
        driver.manage().window().setSize(new Dimension(1366, 900));
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
    @Order(1)
    void the_browsers_language_is_taken_and_the_switch_in_the_header_changes_it_for_good() {
        driver.get(url("/login"));
        assertThat(driver.findElement(By.tagName("html")).getDomAttribute("lang"))
                .isEqualTo("zh-CN");
        assertThat(text("login-title")).isEqualTo("登录 AX");
        driver.findElement(By.id("token")).sendKeys(ConsoleServer.ADMIN);
        driver.findElement(By.id("login")).click();
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("who")));
        assertThat(driver.findElement(By.cssSelector("nav[aria-label='主导航']")).getText())
                .contains("总览", "任务", "实例", "执行器", "审计日志");

        driver.get(url("/tasks"));
        driver.findElement(By.id("lang-en")).click();
        waiting().until(ExpectedConditions.urlToBe(url("/tasks")));
        assertThat(driver.findElement(By.tagName("h1")).getText()).startsWith("Tasks");
        driver.navigate().refresh();
        assertThat(driver.findElement(By.tagName("html")).getDomAttribute("lang"))
                .isEqualTo("en");
        driver.findElement(By.id("lang-zh-CN")).click();
        waiting().until(ExpectedConditions.urlToBe(url("/tasks")));
        assertThat(driver.findElement(By.tagName("h1")).getText()).startsWith("任务");
    }

    @Test
    @Order(2)
    void a_task_triggered_by_hand_is_followed_to_its_run_in_chinese_with_times_in_the_browsers_zone() {
        driver.get(url("/tasks/daily_report"));
        assertThat(text("task-status")).isEqualTo("已启用");
        assertThat(text("next-h")).isEqualTo("接下来 10 次触发时间");
        // The task fires at 02:00 Asia/Shanghai: shown in this browser's zone, which is the same.
        assertThat(driver.findElement(By.cssSelector("#next-fires li")).getText())
                .endsWith("02:00:00 GMT+8");
        assertThat(text("zone")).isEqualTo("时间按 Asia/Shanghai 显示。");

        driver.findElement(By.id("params")).sendKeys("reason=值班测试");
        driver.findElement(By.id("trigger")).click();
        waiting().until(ExpectedConditions.urlMatches("/runs/\\d+$"));
        assertThat(text("flash")).startsWith("已触发 daily_report：实例 ");
        waiting().until(ExpectedConditions.textToBe(By.id("run-state"), "成功 SUCCESS"));
        assertThat(text("facts")).contains("手动 manual，由 admin 在节点 console-test-node 上触发", "reason=值班测试", "GMT+8");
        // The timeline's messages, recorded in English, read in Chinese; the event types are codes.
        assertThat(text("events")).contains("SUCCEEDED", "由 admin 触发", "退出码 0");
        assertThat(text("run-message")).isEqualTo("退出码 0");
        Browser.screenshot(driver, "run-zh");

        driver.get(url("/tasks/daily_report"));
        assertThat(driver.findElement(By.cssSelector("section[aria-labelledby='runs-h']"))
                        .getText())
                .contains("成功 SUCCESS", "手动 manual");
        Browser.screenshot(driver, "task-zh");
    }

    @Test
    @Order(3)
    void the_editor_lists_the_apis_reasons_in_chinese_with_the_english_on_hover() {
        driver.get(url("/new-task"));
        assertThat(driver.findElement(By.tagName("h1")).getText()).isEqualTo("新建任务");
        WebElement area = driver.findElement(By.id("definition"));
        area.clear();
        area.sendKeys(ConsoleBrowserTest.SEED
                .replace("daily_report", "bad_zone")
                .replace("Asia/Shanghai", "Asia/Beijing")
                .replace("\"maxRetries\":2", "\"maxRetries\":-1"));
        driver.findElement(By.id("save")).click();

        WebElement errors = waiting().until(ExpectedConditions.visibilityOfElementLocated(By.id("errors")));
        assertThat(text("errors-h")).isEqualTo("未保存：有 2 个问题");
        assertThat(errors.getText())
                .contains("trigger.timezone", "未知的时区“Asia/Beijing”；请用 IANA 时区名", "policy.maxRetries", "必须在 0 到");
        WebElement zone = driver.findElements(By.cssSelector(".field-error")).stream()
                .filter(e -> e.getText().contains("trigger.timezone"))
                .findFirst()
                .orElseThrow()
                .findElement(By.className("reason"));
        assertThat(zone.getDomAttribute("title"))
                .isEqualTo("unknown time zone 'Asia/Beijing'; use an IANA zone id such as Asia/Shanghai or UTC");
        assertThat(text("errors")).contains("没有写入任何内容。");
        Browser.screenshot(driver, "editor-errors-zh");
    }

    @Test
    @Order(4)
    void the_dashboard_reads_in_chinese_and_fits_a_phone() {
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
        ConsoleBrowserTest.waitForState(server, failed, RunState.FAILED);
        ConsoleBrowserTest.history(server);
        driver.get(url("/"));
        assertThat(driver.findElement(By.tagName("h1")).getText()).isEqualTo("总览");
        assertThat(text("card-outcomes")).contains("最近 24 小时", "成功 SUCCESS", "失败 FAILED");
        assertThat(text("failed-h")).isEqualTo("失败待处理");
        assertThat(driver.findElement(By.cssSelector(".legend")).getText()).contains("按 Asia/Shanghai 的整点");
        assertThat(driver.findElements(By.cssSelector("a[href='/runs/" + failed + "']")))
                .isNotEmpty();
        Browser.screenshot(driver, "dashboard-zh");

        driver.executeCdpCommand(
                "Emulation.setDeviceMetricsOverride",
                Map.of("width", 390, "height", 844, "deviceScaleFactor", 1, "mobile", true));
        try {
            driver.navigate().refresh();
            waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("card-outcomes")));
            long overflow = (Long) driver.executeScript(
                    "return document.documentElement.scrollWidth - document.documentElement.clientWidth");
            assertThat(overflow).as("horizontal overflow at phone width").isLessThanOrEqualTo(0);
            Browser.screenshot(driver, "dashboard-phone-zh");
        } finally {
            driver.executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
        }
    }
}
