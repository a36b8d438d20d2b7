package dev.ax.alerts;

import java.util.List;

/** Keeps secrets out of stored errors, events and logs: an exception message may quote a URL with its token. */
final class Secrets {
    /** Shorter values are not scrubbed: replacing every "a" in a message helps nobody. */
    static final int MIN_LENGTH = 4;

    private Secrets() {}

    static String scrub(String text, List<String> secrets) {
        if (text == null) {
            return null;
        }
        String out = text;
        for (String s : secrets) {
            if (s != null && s.length() >= MIN_LENGTH) {
                out = out.replace(s, "***");
            }
        }
        return out;
    }
}
