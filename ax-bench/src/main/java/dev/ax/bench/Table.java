package dev.ax.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/** A plain-text table with aligned columns, and the number formats every benchmark prints. */
final class Table {
    private static final Pattern NUMBER = Pattern.compile("-?[0-9][0-9,.]*( ?(×|%|ms|s|B|MB|/s|req/s))?");
    private final String title;
    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    Table(String title, String... header) {
        this.title = title;
        this.header = List.of(header);
    }

    Table row(Object... cells) {
        List<String> r = new ArrayList<>();
        for (Object c : cells) {
            r.add(c == null ? "" : c.toString());
        }
        while (r.size() < header.size()) {
            r.add("");
        }
        rows.add(r);
        return this;
    }

    Table note(String note) {
        notes.add(note);
        return this;
    }

    String render() {
        int[] width = new int[header.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = header.get(i).length();
        }
        for (List<String> r : rows) {
            for (int i = 0; i < width.length && i < r.size(); i++) {
                width[i] = Math.max(width[i], r.get(i).length());
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append("== ").append(title).append(" ==\n");
        line(sb, header, width);
        StringBuilder rule = new StringBuilder();
        for (int i = 0; i < width.length; i++) {
            rule.append(i == 0 ? "" : "-+-").append("-".repeat(width[i]));
        }
        sb.append(rule).append('\n');
        for (List<String> r : rows) {
            line(sb, r, width);
        }
        for (String n : notes) {
            sb.append("  ").append(n).append('\n');
        }
        return sb.toString();
    }

    /** Markdown for BENCHMARKS.md. */
    String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("| ").append(String.join(" | ", header)).append(" |\n");
        sb.append("|").append("---|".repeat(header.size())).append('\n');
        for (List<String> r : rows) {
            sb.append("| ").append(String.join(" | ", r)).append(" |\n");
        }
        return sb.toString();
    }

    private static void line(StringBuilder sb, List<String> cells, int[] width) {
        for (int i = 0; i < width.length; i++) {
            String c = i < cells.size() ? cells.get(i) : "";
            if (i > 0) {
                sb.append(" | ");
            }
            // Text left, numbers right ("1,000", "0.25×", "693 ms", "4,976/s").
            boolean numeric = i > 0 && NUMBER.matcher(c).matches();
            sb.append(numeric ? " ".repeat(width[i] - c.length()) + c : c + " ".repeat(width[i] - c.length()));
        }
        // No trailing blanks.
        int end = sb.length();
        while (end > 0 && sb.charAt(end - 1) == ' ') {
            end--;
        }
        sb.setLength(end);
        sb.append('\n');
    }

    // ---- formats ------------------------------------------------------------------------

    /**
     * "AX / other" as the table prints it: {@code 1.7×}, {@code 0.25×}, {@code 12×}; "n/a" when
     * either side is missing (negative, NaN) or the denominator is zero.
     */
    static String ratio(double ax, double other) {
        if (Double.isNaN(ax) || Double.isNaN(other) || ax < 0 || other <= 0) {
            return "n/a";
        }
        double r = ax / other;
        if (r >= 10) {
            return String.format(Locale.ROOT, "%.0f×", r);
        }
        if (r >= 1) {
            return String.format(Locale.ROOT, "%.1f×", r);
        }
        return String.format(Locale.ROOT, "%.2f×", r);
    }

    /** A rate or count with thousands separators and no decimals: {@code 4,976}. */
    static String num(double v) {
        if (Double.isNaN(v) || v < 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    /** Milliseconds as people read them: {@code 7 ms}, {@code 1.1 s}, {@code 39 s}. */
    static String ms(long millis) {
        if (millis < 0) {
            return "n/a";
        }
        if (millis < 1000) {
            return millis + " ms";
        }
        if (millis < 10_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        return String.format(Locale.ROOT, "%.0f s", millis / 1000.0);
    }

    static String ms(double millis) {
        return Double.isNaN(millis) ? "n/a" : ms((long) millis);
    }

    /** Milliseconds of CPU per operation, to a hundredth: {@code 0.55 ms}. */
    static String cpuMs(double millis) {
        return Double.isNaN(millis) || Double.isInfinite(millis)
                ? "n/a"
                : String.format(Locale.ROOT, "%.2f ms", millis);
    }

    static String mb(double bytes) {
        return Double.isNaN(bytes) ? "n/a" : mb((long) bytes);
    }

    static String mb(long bytes) {
        if (bytes < 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.0f MB", bytes / (1024.0 * 1024.0));
    }

    static String cores(double c) {
        return Double.isNaN(c) ? "n/a" : String.format(Locale.ROOT, "%.2f", c);
    }

    static String dec(double v, int digits) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "n/a" : String.format(Locale.ROOT, "%." + digits + "f", v);
    }

    static double median(double... values) {
        double[] v =
                Arrays.stream(values).filter(d -> !Double.isNaN(d)).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
