package dev.ax.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.ax.store.Tx;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The borders between the parts of AX, as docs/architecture.md draws them. */
class ArchitectureTest {
    static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        // Test jars of other modules (their shared fixtures) are on this classpath too; their tests may set up rows in
        // SQL.
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("dev.ax");
    }

    @Test
    void the_domain_depends_on_no_other_part_and_no_framework() {
        ArchRule rule = noClasses()
                .that()
                .resideInAPackage("dev.ax.domain..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.ax.store..",
                        "dev.ax.scheduler..",
                        "dev.ax.executor..",
                        "dev.ax.api..",
                        "dev.ax.server..",
                        "dev.ax.cli..",
                        "com.fasterxml..",
                        "io.javalin..",
                        "java.sql..",
                        "javax.sql..",
                        "org.slf4j..");
        rule.check(classes);
    }

    @Test
    void the_executor_never_touches_the_store_or_the_scheduler() {
        noClasses()
                .that()
                .resideInAPackage("dev.ax.executor..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.ax.store..", "dev.ax.scheduler..", "java.sql..")
                .check(classes);
    }

    /** The statements of {@link Tx}; its transaction controls ({@code lockKey}, {@code now}, …) may be used by any caller. */
    private static final Set<String> STATEMENTS =
            Set.of("query", "queryOne", "update", "insert", "insertUnlessDuplicate", "updateUnlessDuplicate", "batch");

    @Test
    void only_the_store_writes_sql() {
        noClasses()
                .that()
                .resideOutsideOfPackage("dev.ax.store..")
                .should()
                .callMethodWhere(DescribedPredicate.describe(
                        "a statement of Tx",
                        (JavaMethodCall call) ->
                                call.getTargetOwner().isEquivalentTo(Tx.class) && STATEMENTS.contains(call.getName())))
                .because("every SQL statement lives in ax-store: its stores and its read models (dev.ax.store.read)")
                .check(classes);
        // The SDK and the Spring starter work in the caller's own database (the idempotency helper), not in AX's.
        noClasses()
                .that()
                .resideOutsideOfPackages("dev.ax.store..", "dev.ax.sdk..", "dev.ax.spring..", "dev.ax.bench..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("java.sql..", "javax.sql..")
                .because("JDBC is the store's business")
                .check(classes);
    }

    @Test
    void the_scheduler_does_not_know_about_http() {
        noClasses()
                .that()
                .resideInAPackage("dev.ax.scheduler..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.ax.api..", "io.javalin..", "java.net.http..")
                .check(classes);
    }

    @Test
    void only_clocks_read_the_wall_clock() {
        noClasses()
                .that()
                .doNotHaveSimpleName("SystemClock")
                .should()
                .callMethod(Instant.class, "now")
                .orShould()
                .callMethod(System.class, "currentTimeMillis")
                .because("time comes from an injected AxClock (the database's, in production)")
                .check(classes);
    }
}
