package dev.ax.alerts;

import java.util.Map;

/**
 * An alert as plain text (mail, Feishu, Slack), as Markdown (DingTalk, WeCom): one reading order for all, in the
 * alert's language. The subject keeps its code ({@code [AX CRITICAL]}) in every language: mail filters and robots'
 * keyword checks look for it.
 */
public final class AlertText {
    private AlertText() {}

    public static String subject(AlertContent c) {
        return "[AX " + c.kind().severity() + "] " + c.title();
    }

    public static String plain(AlertContent c) {
        AlertWords w = c.words();
        StringBuilder b = new StringBuilder();
        b.append(c.title()).append("\n\n");
        for (Map.Entry<String, String> f : c.fields().entrySet()) {
            b.append(w.text("text.field", w.label(f.getKey()), f.getValue())).append('\n');
        }
        if (!c.details().isEmpty()) {
            b.append('\n');
            c.details().forEach(d -> b.append("- ").append(d).append('\n'));
        }
        if (c.nextAction() != null) {
            b.append('\n').append(w.text("text.next", c.nextAction())).append('\n');
        }
        if (c.link() != null) {
            b.append(w.text("text.console", c.link())).append('\n');
        }
        if (!c.logTail().isEmpty()) {
            b.append('\n').append(w.text("text.log_tail")).append('\n').append(c.logTail());
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
        AlertWords w = c.words();
        StringBuilder b = new StringBuilder();
        b.append("### ")
                .append(icon(c.kind().severity()))
                .append(' ')
                .append(escape(c.title()))
                .append("\n\n");
        for (Map.Entry<String, String> f : c.fields().entrySet()) {
            b.append("- ")
                    .append(w.text("markdown.field", w.label(f.getKey()), escape(f.getValue())))
                    .append('\n');
        }
        if (!c.details().isEmpty()) {
            b.append('\n');
            c.details().forEach(d -> b.append("- ").append(escape(d)).append('\n'));
        }
        if (c.nextAction() != null) {
            b.append('\n')
                    .append(w.text("markdown.next", escape(c.nextAction())))
                    .append('\n');
        }
        if (c.link() != null) {
            b.append('\n').append(w.text("markdown.console", c.link())).append('\n');
        }
        if (!c.logTail().isEmpty()) {
            b.append("\n**").append(w.text("text.log_tail_heading")).append("**\n\n");
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
