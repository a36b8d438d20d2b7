package dev.ax.cli;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;

/** Blocks a long-running command ({@code ax server}, {@code ax executor}) until it is told to stop, then stops it. */
final class Shutdown {
    private Shutdown() {}

    /**
     * Blocks the calling thread until SIGTERM or SIGINT, runs {@code stop} (an orderly stop: a drain, then closing) and
     * exits 0: a supervisor (systemd, Kubernetes) that sent SIGTERM sees a clean stop. The JVM's own handling would run
     * the shutdown hooks at once and exit 143. Any other end of the JVM still runs {@code stop} from a shutdown hook.
     */
    static void awaitSignal(String name, Runnable stop) {
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean stopping = new AtomicBoolean();
        Runnable once = () -> {
            if (stopping.compareAndSet(false, true)) {
                try {
                    stop.run();
                } finally {
                    stopped.countDown();
                }
            }
        };
        for (String signal : List.of("TERM", "INT")) {
            Signal.handle(
                    new Signal(signal),
                    s -> Thread.ofPlatform().name("ax-stop-" + name).start(() -> {
                        once.run();
                        System.exit(ExitCodes.OK);
                    }));
        }
        Runtime.getRuntime()
                .addShutdownHook(Thread.ofPlatform().name("ax-shutdown-" + name).unstarted(once));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
