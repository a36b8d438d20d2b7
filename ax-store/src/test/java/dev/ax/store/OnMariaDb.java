package dev.ax.store;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * A test class that runs on MariaDB ({@link TestDatabases#mariadb()}): skipped as a whole, with the notice printed
 * once, on a machine where no MariaDB is configured and the embedded one cannot start; a configured server that does
 * not answer fails it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@EnabledIf("dev.ax.store.TestDatabases#mariadbServes")
public @interface OnMariaDb {}
