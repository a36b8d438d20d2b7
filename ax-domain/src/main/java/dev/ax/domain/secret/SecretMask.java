package dev.ax.domain.secret;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes {@value #MASK} for the values of secrets in text AX reports, stores or shows: a job that prints its
 * password shows {@code ***}. Immutable; one is built from the values a run carries (executors, SDK workers) or
 * from every stored secret (a server node).
 *
 * <p>Output arrives line by line, so a value that spans lines (a PEM key) can never appear whole in one: each of
 * its lines is masked on its own. A value, or a line of one, shorter than {@value #MIN_LENGTH} characters is not
 * masked: replacing every "a" of a log helps nobody and tells what the value is. Values are replaced longest
 * first, so a secret that holds another one is masked whole.
 */
public final class SecretMask {
    public static final String MASK = "***";
    /** The shortest value (or line of a multi-line value) that is masked; shorter secrets are refused when set. */
    public static final int MIN_LENGTH = 4;

    public static final SecretMask NONE = new SecretMask(List.of());

    private final List<String> patterns;

    private SecretMask(List<String> patterns) {
        this.patterns = patterns;
    }

    /** A mask for {@code values}; nulls, and values or lines shorter than {@link #MIN_LENGTH}, are left out. */
    public static SecretMask of(Collection<String> values) {
        Set<String> patterns = new LinkedHashSet<>();
        for (String value : values) {
            if (value == null) {
                continue;
            }
            for (String line : value.split("\r\n|\r|\n")) {
                if (line.length() >= MIN_LENGTH) {
                    patterns.add(line);
                }
            }
        }
        if (patterns.isEmpty()) {
            return NONE;
        }
        List<String> sorted = new ArrayList<>(patterns);
        sorted.sort(Comparator.comparingInt(String::length).reversed());
        return new SecretMask(List.copyOf(sorted));
    }

    public boolean isEmpty() {
        return patterns.isEmpty();
    }

    /** The length of the longest text masked: a value split at a boundary has fewer characters than this on each side. */
    public int longest() {
        return patterns.isEmpty() ? 0 : patterns.getFirst().length();
    }

    /** {@code text} with every value replaced by {@value #MASK}; null stays null. */
    public String apply(String text) {
        if (text == null || patterns.isEmpty()) {
            return text;
        }
        String out = text;
        for (String p : patterns) {
            if (out.contains(p)) {
                out = out.replace(p, MASK);
            }
        }
        return out;
    }

    /** Each line masked; the same list when nothing changed. */
    public List<String> apply(List<String> lines) {
        if (patterns.isEmpty()) {
            return lines;
        }
        List<String> out = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String masked = apply(line);
            if (out == null && !masked.equals(line)) {
                out = new ArrayList<>(lines.subList(0, i));
            }
            if (out != null) {
                out.add(masked);
            }
        }
        return out == null ? lines : out;
    }

    /** How many texts are masked (never which). */
    @Override
    public String toString() {
        return "SecretMask[" + patterns.size() + " values]";
    }
}
