package dev.ax.sdk;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/** This machine's name, for the executor list ("which host ran it"). */
final class Hosts {
    private Hosts() {}

    static String name() {
        // The kernel's name first: InetAddress may wait for DNS, and a service's start-up must stay fast.
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
