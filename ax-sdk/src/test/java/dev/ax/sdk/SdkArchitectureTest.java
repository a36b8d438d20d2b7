package dev.ax.sdk;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.time.Instant;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The SDK's borders: a client of the server's protocol and API, nothing more. */
class SdkArchitectureTest {
    static JavaClasses sdk;

    @BeforeAll
    static void importClasses() {
        sdk = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.ax.sdk");
    }

    @Test
    void the_sdk_never_touches_the_servers_parts() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.ax.store..",
                        "dev.ax.scheduler..",
                        "dev.ax.api..",
                        "dev.ax.server..",
                        "dev.ax.alerts..",
                        "dev.ax.cli..",
                        "io.javalin..")
                .check(sdk);
    }

    @Test
    void the_sdk_reads_no_wall_clock() {
        noClasses()
                .should()
                .callMethod(Instant.class, "now")
                .orShould()
                .callMethod(System.class, "currentTimeMillis")
                .because(
                        "timeouts and pauses use monotonic timers; times shown come from the server or the user's database")
                .check(sdk);
    }
}
