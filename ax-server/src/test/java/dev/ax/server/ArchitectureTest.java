package dev.ax.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The borders between the parts of AX, as DESIGN.md and STYLE.md draw them. */
class ArchitectureTest {
    static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.ax");
    }

    @Test
    void the_domain_depends_on_no_other_part_and_no_framework() {
        ArchRule rule = noClasses().that().resideInAPackage("dev.ax.domain..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ax.store..", "dev.ax.scheduler..", "dev.ax.executor..",
                        "dev.ax.api..", "dev.ax.server..", "dev.ax.cli..", "com.fasterxml..", "io.javalin..", "java.sql..",
                        "javax.sql..", "org.slf4j..");
        rule.check(classes);
    }

    @Test
    void the_executor_never_touches_the_store_or_the_scheduler() {
        noClasses().that().resideInAPackage("dev.ax.executor..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ax.store..", "dev.ax.scheduler..", "java.sql..")
                .check(classes);
    }

    @Test
    void the_scheduler_does_not_know_about_http() {
        noClasses().that().resideInAPackage("dev.ax.scheduler..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ax.api..", "io.javalin..", "java.net.http..")
                .check(classes);
    }

    @Test
    void only_clocks_read_the_wall_clock() {
        noClasses().that().doNotHaveSimpleName("SystemClock")
                .should().callMethod(java.time.Instant.class, "now")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .because("time comes from an injected AxClock (the database's, in production)")
                .check(classes);
    }
}
