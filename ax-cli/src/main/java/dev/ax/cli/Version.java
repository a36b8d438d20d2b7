package dev.ax.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** The version and commit Maven wrote into {@code dev/ax/cli/version.properties} at build time. */
public final class Version implements IVersionProvider {
    private static final String UNKNOWN = "dev";
    private static final Properties BUILD = load();
    private static final String VERSION = value("version", UNKNOWN);

    public static String get() {
        return VERSION;
    }

    /** The commit built from, or "unknown" outside a git checkout. */
    public static String commit() {
        return value("commit", "unknown");
    }

    @Override
    public String[] getVersion() {
        return new String[] {
            "ax " + VERSION + " (commit " + commit() + ")",
            "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"
        };
    }

    private static String value(String key, String otherwise) {
        String v = BUILD.getProperty(key, otherwise).strip();
        // Unfiltered (an IDE that copies resources itself, or no git): say so rather than print "${project.version}".
        return v.isEmpty() || v.startsWith("${") ? otherwise : v;
    }

    private static Properties load() {
        Properties p = new Properties();
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // no build information: "dev"
        }
        return p;
    }
}
