package dev.ax.cli;

import java.util.concurrent.CountDownLatch;

/** Blocks a long-running command ({@code ax server}, {@code ax executor}) until the JVM is told to stop. */
final class Shutdown {
    private Shutdown() {}

    /**
     * Runs {@code stop} when the JVM shuts down (SIGINT, SIGTERM) and blocks the calling thread until then. The hook
     * does the closing because after SIGTERM the JVM runs hooks and halts; the blocked thread never gets to return.
     */
    static void awaitSignal(String name, Runnable stop) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(Thread.ofPlatform().name("ax-shutdown-" + name).unstarted(() -> {
                    try {
                        stop.run();
                    } finally {
                        stopped.countDown();
                    }
                }));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
