package dev.ax.executor;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/** This machine's name, as executors and nodes show it ("which host ran it"). */
public final class Hosts {
    private Hosts() {}

    public static String name() {
        // The kernel's name first: InetAddress may wait for DNS, and a start-up must stay fast.
        try {
            Path kernel = Path.of("/proc/sys/kernel/hostname");
            if (Files.isReadable(kernel)) {
                String name = Files.readString(kernel).strip();
                if (!name.isEmpty()) {
                    return name;
                }
            }
        } catch (IOException e) {
            // fall through
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            String env = System.getenv("HOSTNAME");
            return env == null || env.isBlank() ? "unknown" : env;
        }
    }
}
