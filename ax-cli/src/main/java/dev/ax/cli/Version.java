package dev.ax.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** The version Maven wrote into {@code dev/ax/cli/version.properties} at build time. */
public final class Version implements IVersionProvider {
    private static final String UNKNOWN = "dev";
    private static final String VERSION = load();

    public static String get() {
        return VERSION;
    }

    @Override
    public String[] getVersion() {
        return new String[] {
            "ax " + VERSION,
            "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"
        };
    }

    private static String load() {
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return UNKNOWN;
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", UNKNOWN).strip();
            // Unfiltered (run from an IDE that copies resources itself): say so rather than print "${project.version}".
            return v.isEmpty() || v.startsWith("${") ? UNKNOWN : v;
        } catch (IOException e) {
            return UNKNOWN;
        }
    }
}
