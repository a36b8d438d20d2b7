package dev.ax.sdk;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;
import java.util.Arrays;

class H2IdempotencyStoreTest extends IdempotencyStoreContractTest {
    @Override
    DbConfig database() {
        return TestDatabases.h2();
    }

    /**
     * Embedded H2 shows no row-lock wait in its sessions table: the waiting insert retries inside
     * {@code Insert.insertRows} on the caller's thread until the key is free or its lock timeout passes.
     * An insert of a key that another transaction holds cannot finish, so an insert on the stack is a wait.
     */
    @Override
    boolean waitsForALock(Thread thread) {
        return Arrays.stream(thread.getStackTrace())
                .anyMatch(f -> f.getClassName().equals("org.h2.command.dml.Insert"));
    }
}
