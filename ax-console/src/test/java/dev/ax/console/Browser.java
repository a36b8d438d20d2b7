package dev.ax.console;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;

/**
 * Debian's headless Chromium driven by Debian's chromedriver (packages {@code chromium} and
 * {@code chromium-driver}; .ci/run installs them). Without them the browser tests are skipped
 * on a developer's machine and fail in CI ({@code CI=true}).
 */
final class Browser {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /** Set to a directory (e.g. {@code -Dax.screenshots=../docs/screenshots}) to write the docs' screenshots. */
    static final String SCREENSHOTS = "ax.screenshots";

    private Browser() {}

    static ChromeDriver start(Path profile) {
        return start(profile, "en-US", null);
    }

    /**
     * A browser that asks for {@code language} first ({@code Accept-Language}) and lives in {@code zone} (null: the
     * machine's), as a person's browser in another country does.
     */
    static ChromeDriver start(Path profile, String language, String zone) {
        boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!installed && !"true".equals(System.getenv("CI"))) {
            Assumptions.abort(
                    "browser tests need Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)");
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-dev-shm-usage",
                "--user-data-dir=" + profile.toAbsolutePath(),
                "--window-size=1366,900",
                "--lang=" + language);
        options.setExperimentalOption("prefs", Map.of("intl.accept_languages", language));
        // The browser's console, to check that no page logs an error (a CSP refusal, a script error, a missing file).
        options.setCapability("goog:loggingPrefs", Map.of("browser", "ALL"));
        ChromeDriverService.Builder builder = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER.toString()))
                .usingAnyFreePort();
        if (zone != null) {
            // The browser takes its zone from its environment, as it would from the machine of a person elsewhere.
            builder.withEnvironment(Map.of("TZ", zone));
        }
        ChromeDriverService service = builder.build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        driver.manage().window().setSize(new Dimension(1366, 900));
        return driver;
    }

    /** What the pages logged at SEVERE level since the last call. */
    static List<String> consoleErrors(ChromeDriver driver) {
        return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogEntry::getMessage)
                .toList();
    }

    /** Saves a full-page PNG as {@code <dir>/<name>.png} when {@value #SCREENSHOTS} names a directory; else does nothing. */
    static void screenshot(ChromeDriver driver, String name) {
        String dir = System.getProperty(SCREENSHOTS);
        if (dir == null || dir.isBlank()) {
            return;
        }
        try {
            Path target = Path.of(dir).resolve(name + ".png");
            Files.createDirectories(target.getParent());
            // The whole page, not just the window: ask Chromium (DevTools protocol) to capture beyond the viewport.
            @SuppressWarnings("unchecked")
            Map<String, Object> size = (Map<String, Object>)
                    driver.executeCdpCommand("Page.getLayoutMetrics", Map.of()).get("cssContentSize");
            Map<String, Object> clip = Map.of(
                    "x",
                    0,
                    "y",
                    0,
                    "width",
                    ((Number) size.get("width")).doubleValue(),
                    "height",
                    ((Number) size.get("height")).doubleValue(),
                    "scale",
                    1);
            String png = (String) driver.executeCdpCommand(
                            "Page.captureScreenshot",
                            Map.of("format", "png", "captureBeyondViewport", true, "clip", clip))
                    .get("data");
            Files.write(target, Base64.getDecoder().decode(png));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
