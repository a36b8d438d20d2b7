package dev.ax.alerts;

import java.util.Map;

/** An alert as plain text (mail, Slack), as Markdown (DingTalk, WeCom): one reading order for all. */
public final class AlertText {
    private AlertText() {}

    public static String subject(AlertContent c) {
        return "[AX " + c.kind().severity() + "] " + c.title();
    }

    public static String plain(AlertContent c) {
        StringBuilder b = new StringBuilder();
        b.append(c.title()).append("\n\n");
        for (Map.Entry<String, String> f : c.fields().entrySet()) {
            b.append(f.getKey()).append(": ").append(f.getValue()).append('\n');
        }
        if (!c.details().isEmpty()) {
            b.append('\n');
            c.details().forEach(d -> b.append("- ").append(d).append('\n'));
        }
        if (c.nextAction() != null) {
            b.append("\nNext: ").append(c.nextAction()).append('\n');
        }
        if (c.link() != null) {
            b.append("Console: ").append(c.link()).append('\n');
        }
        if (!c.logTail().isEmpty()) {
            b.append("\nLast lines of the log:\n").append(c.logTail());
            if (!c.logTail().endsWith("\n")) {
                b.append('\n');
            }
        }
        return b.toString();
    }

    /**
     * The Markdown subset the chat robots render (headings, bold, lists, quotes, links): no code
     * fences, which DingTalk shows literally, so log lines become quoted lines.
     */
    public static String markdown(AlertContent c) {
        StringBuilder b = new StringBuilder();
        b.append("### ")
                .append(icon(c.kind().severity()))
                .append(' ')
                .append(escape(c.title()))
                .append("\n\n");
        for (Map.Entry<String, String> f : c.fields().entrySet()) {
            b.append("- **")
                    .append(f.getKey())
                    .append("**: ")
                    .append(escape(f.getValue()))
                    .append('\n');
        }
        if (!c.details().isEmpty()) {
            b.append('\n');
            c.details().forEach(d -> b.append("- ").append(escape(d)).append('\n'));
        }
        if (c.nextAction() != null) {
            b.append("\n**Next**: ").append(escape(c.nextAction())).append('\n');
        }
        if (c.link() != null) {
            b.append("\n[Open in the console](").append(c.link()).append(")\n");
        }
        if (!c.logTail().isEmpty()) {
            b.append("\n**Last lines of the log**\n\n");
            for (String line : c.logTail().split("\n", -1)) {
                if (!line.isEmpty()) {
                    b.append("> ").append(escape(line)).append("  \n");
                }
            }
        }
        return b.toString();
    }

    private static String icon(AlertKind.Severity s) {
        return switch (s) {
            case CRITICAL -> "🔴";
            case WARNING -> "🟠";
            case INFO -> "🔵";
            case RESOLVED -> "🟢";
        };
    }

    /**
     * The robots' Markdown has no reliable escape (DingTalk shows a backslash as it is), so only what
     * would break the layout is changed: backticks. Our lines start with "- " or "> ", never "#".
     */
    static String escape(String s) {
        return s == null ? "" : s.replace('`', '\'');
    }
}
