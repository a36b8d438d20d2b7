package dev.ax.domain.template;

import dev.ax.domain.template.Escapes.Encoding;
import dev.ax.domain.template.Templates.Placeholder;
import dev.ax.domain.template.Templates.Slot;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Follows a shell command's quoting (POSIX sh, with bash's extra quotes recognised) to learn, for each
 * template variable, the context its value will stand in: a bare word, inside double quotes, inside
 * single quotes — or a place where no quoting keeps a value from being read as code (backquotes,
 * {@code ${…}}, {@code $((…))}, {@code $'…'}, a here-document, a comment, right after a backslash or a
 * {@code $}), which is refused for a value that comes from outside. AX's own values (dates, the task's
 * name, ids) hold only letters, digits and {@code _.:+-}, which mean nothing to a shell anywhere, so
 * they may stand in those places too, except right after a {@code $}.
 *
 * <p>The reading errs one way only: where it cannot be sure (a {@code case} inside {@code $( )}, whose
 * patterns end in an unmatched {@code )}; quoting that does not close by the end), every variable from
 * there on is refused rather than guessed at. A wrong guess about the context is how a quoted value
 * turns into code, so refusing is the only safe answer to doubt.
 */
final class ShellSyntax {
    /** Plain shell text ({@code TOP}, or {@code SUB}: a {@code $( )} that ends at its closing parenthesis) and the quotes. */
    private enum Mode {
        TOP,
        SUB,
        DOUBLE,
        SINGLE,
        ANSI,
        BACKQUOTE,
        PARAM,
        ARITH
    }

    private static final class Frame {
        final Mode mode;
        int depth; // parentheses opened inside a SUB or ARITH, braces inside a PARAM

        Frame(Mode mode) {
            this.mode = mode;
        }
    }

    private record HereDoc(String delimiter, boolean stripTabs) {}

    private final String s;
    private final List<Placeholder> placeholders;
    private final Slot[] slots;
    private final Deque<Frame> stack = new ArrayDeque<>();
    private final List<HereDoc> pending = new ArrayList<>();
    private final StringBuilder word = new StringBuilder();
    private int next; // the next placeholder not yet reached
    private boolean wordStart = true;
    /** Set at a {@code case} inside {@code $( )}: from there on the end of the substitution cannot be found for sure. */
    private String lostAt;

    private ShellSyntax(String s, List<Placeholder> placeholders) {
        this.s = s;
        this.placeholders = placeholders;
        this.slots = new Slot[placeholders.size()];
        stack.push(new Frame(Mode.TOP));
    }

    /** One slot per placeholder, in order. */
    static List<Slot> slots(String command, List<Placeholder> placeholders) {
        ShellSyntax reader = new ShellSyntax(command, placeholders);
        reader.read();
        return List.of(reader.slots);
    }

    private void read() {
        int i = 0;
        while (i < s.length()) {
            i = step(i);
        }
        endWord();
        if (stack.size() > 1) {
            String open = switch (stack.peek().mode) {
                case DOUBLE -> "a double quote";
                case SINGLE, ANSI -> "a single quote";
                case BACKQUOTE -> "a backquote";
                case SUB -> "a $(";
                case PARAM -> "a ${";
                default -> "a $((";
            };
            refuseAll("the command leaves " + open + " open, so where each variable stands cannot be known");
        }
        for (int p = 0; p < slots.length; p++) {
            if (slots[p] == null) { // inside a here-document or comment that swallowed it
                slots[p] = Slot.refused("inside a here-document or a comment");
            }
        }
    }

    /** Reads from {@code i}; returns where to go on. */
    private int step(int i) {
        if (next < placeholders.size() && placeholders.get(next).start() == i) {
            return placeholder(i);
        }
        Mode mode = stack.peek().mode;
        char c = s.charAt(i);
        return switch (mode) {
            case TOP, SUB -> plain(i, c);
            case DOUBLE -> doubleQuoted(i, c);
            case SINGLE -> c == '\'' ? pop(i + 1) : i + 1;
            case ANSI, BACKQUOTE -> {
                if (c == '\\') {
                    yield escaped(i);
                }
                yield (mode == Mode.ANSI && c == '\'') || (mode == Mode.BACKQUOTE && c == '`') ? pop(i + 1) : i + 1;
            }
            case PARAM -> param(i, c);
            case ARITH -> arith(i, c);
        };
    }

    private int placeholder(int i) {
        Placeholder p = placeholders.get(next);
        Slot slot;
        if (lostAt != null) {
            slot = Slot.refused(lostAt);
        } else if (stack.stream().anyMatch(f -> f.mode == Mode.BACKQUOTE)) {
            slot = Slot.refused("inside backquotes, where quotes are read twice; use $( ) instead");
        } else if (stack.stream().anyMatch(f -> f.mode == Mode.PARAM)) {
            slot = Slot.refused("inside ${…}, whose quoting differs between shells");
        } else if (stack.stream().anyMatch(f -> f.mode == Mode.ARITH)) {
            slot = Slot.refused("inside $((…)), where a value is evaluated as an expression");
        } else {
            slot = switch (stack.peek().mode) {
                case DOUBLE -> new Slot(Encoding.SHELL_DOUBLE, false, null);
                case SINGLE -> new Slot(Encoding.SHELL_SINGLE, false, null);
                case ANSI -> Slot.refused("inside $'…', where backslashes in a value would be read as escapes");
                // After a '~' even a plain value is quoted: unquoted, "~" + "root" would be root's home directory.
                default ->
                    new Slot(
                            i > 0 && s.charAt(i - 1) == '~' ? Encoding.SHELL_QUOTED : Encoding.SHELL_WORD,
                            wordStart && endsWord(p.end()),
                            null);
            };
        }
        slots[next++] = slot;
        wordStart = false;
        word.append('\0'); // a word holding a variable is no keyword
        return p.end();
    }

    private int plain(int i, char c) {
        switch (c) {
            case '\'' -> {
                return push(Mode.SINGLE, i + 1);
            }
            case '"' -> {
                return push(Mode.DOUBLE, i + 1);
            }
            case '`' -> {
                return push(Mode.BACKQUOTE, i + 1);
            }
            case '\\' -> {
                if (i + 1 < s.length() && s.charAt(i + 1) == '\n') {
                    return i + 2; // a line continuation joins two lines into one
                }
                wordStart = false;
                word.append('\\');
                return escaped(i);
            }
            case '$' -> {
                return dollar(i);
            }
            case '#' -> {
                if (wordStart) {
                    return comment(i);
                }
                return other(i, c);
            }
            case '<' -> {
                if (s.startsWith("<<<", i)) {
                    endWord();
                    return i + 3; // bash's here-string: the word after it is an ordinary word
                }
                if (s.startsWith("<<", i)) {
                    endWord();
                    return hereDoc(i + 2);
                }
                endWord();
                return i + 1;
            }
            case '\n' -> {
                endWord();
                return pending.isEmpty() ? i + 1 : hereDocBodies(i + 1);
            }
            case '(' -> {
                endWord();
                stack.peek().depth++;
                return i + 1;
            }
            case ')' -> {
                endWord();
                Frame top = stack.peek();
                if (top.mode == Mode.SUB && top.depth == 0) {
                    return pop(i + 1);
                }
                top.depth = Math.max(0, top.depth - 1);
                return i + 1;
            }
            case ' ', '\t', ';', '&', '|', '>' -> {
                endWord();
                return i + 1;
            }
            default -> {
                return other(i, c);
            }
        }
    }

    private int other(int i, char c) {
        wordStart = false;
        word.append(c);
        return i + 1;
    }

    private int doubleQuoted(int i, char c) {
        return switch (c) {
            case '"' -> pop(i + 1);
            case '\\' -> escaped(i);
            case '`' -> push(Mode.BACKQUOTE, i + 1);
            case '$' -> dollar(i);
            default -> i + 1;
        };
    }

    /** A backslash at {@code i}: it quotes the next character, which a variable's first brace must not be. */
    private int escaped(int i) {
        if (next < placeholders.size() && placeholders.get(next).start() == i + 1) {
            Placeholder p = placeholders.get(next);
            slots[next++] = Slot.refused("right after a backslash, which would quote only the value's first character");
            return p.end();
        }
        return Math.min(s.length(), i + 2);
    }

    private int dollar(int i) {
        if (next < placeholders.size() && placeholders.get(next).start() == i + 1) {
            Placeholder p = placeholders.get(next);
            slots[next++] = Slot.refusedAlways("right after a '$', which would make the value part of an expansion");
            wordStart = false;
            return p.end();
        }
        wordStart = false;
        word.append('$');
        if (s.startsWith("$((", i)) {
            return push(Mode.ARITH, i + 3);
        }
        if (s.startsWith("$(", i)) {
            push(Mode.SUB, i + 2);
            word.setLength(0); // a command starts here: its first word may be a keyword
            wordStart = true;
            return i + 2;
        }
        if (s.startsWith("${", i)) {
            return push(Mode.PARAM, i + 2);
        }
        if (s.startsWith("$'", i) && stack.peek().mode != Mode.DOUBLE) {
            return push(Mode.ANSI, i + 2);
        }
        if (s.startsWith("$\"", i) && stack.peek().mode != Mode.DOUBLE) {
            return push(Mode.DOUBLE, i + 2); // bash's translated string: quoted as a double-quoted one
        }
        return i + 1;
    }

    private int param(int i, char c) {
        Frame top = stack.peek();
        return switch (c) {
            case '\\' -> escaped(i);
            case '\'' -> push(Mode.SINGLE, i + 1);
            case '"' -> push(Mode.DOUBLE, i + 1);
            case '`' -> push(Mode.BACKQUOTE, i + 1);
            case '$' -> dollar(i);
            case '{' -> {
                top.depth++;
                yield i + 1;
            }
            case '}' -> {
                if (top.depth == 0) {
                    yield pop(i + 1);
                }
                top.depth--;
                yield i + 1;
            }
            default -> i + 1;
        };
    }

    private int arith(int i, char c) {
        Frame top = stack.peek();
        if (c == '(') {
            top.depth++;
        } else if (c == ')') {
            if (top.depth > 0) {
                top.depth--;
            } else {
                return pop(s.startsWith("))", i) ? i + 2 : i + 1);
            }
        } else if (c == '$') {
            return dollar(i);
        }
        return i + 1;
    }

    /** A comment runs to the end of the line; a variable inside it could end the line early and start a command. */
    private int comment(int i) {
        int end = s.indexOf('\n', i);
        end = end < 0 ? s.length() : end;
        refuseUpTo(end, "inside a comment, where a line break in a value would start a command");
        return end;
    }

    /** After {@code <<}: an optional '-', blanks, and the delimiter word, whose body starts at the next line. */
    private int hereDoc(int i) {
        boolean stripTabs = i < s.length() && s.charAt(i) == '-';
        int j = stripTabs ? i + 1 : i;
        while (j < s.length() && (s.charAt(j) == ' ' || s.charAt(j) == '\t')) {
            j++;
        }
        StringBuilder delimiter = new StringBuilder();
        while (j < s.length() && " \t\n;&|()<>".indexOf(s.charAt(j)) < 0) {
            if (next < placeholders.size() && placeholders.get(next).start() == j) {
                Placeholder p = placeholders.get(next);
                slots[next++] = Slot.refused("in a here-document's delimiter");
                j = p.end();
                continue;
            }
            char c = s.charAt(j);
            if (c != '\'' && c != '"' && c != '\\') {
                delimiter.append(c);
            }
            j++;
        }
        pending.add(new HereDoc(delimiter.toString(), stripTabs));
        wordStart = true;
        return j;
    }

    /** The bodies of the here-documents opened on the line that just ended, starting at {@code i}. */
    private int hereDocBodies(int i) {
        for (HereDoc doc : pending) {
            while (i < s.length()) {
                int end = s.indexOf('\n', i);
                end = end < 0 ? s.length() : end;
                String line = s.substring(i, end);
                if (doc.stripTabs()) {
                    line = line.replaceFirst("^\t+", "");
                }
                refuseUpTo(
                        end, "inside a here-document, whose text is expanded (or, quoted, could be ended by a value)");
                i = Math.min(s.length(), end + 1);
                if (line.equals(doc.delimiter())) {
                    break;
                }
            }
        }
        pending.clear();
        wordStart = true;
        return i;
    }

    /** Every placeholder that starts before {@code end} is refused for {@code reason}. */
    private void refuseUpTo(int end, String reason) {
        while (next < placeholders.size() && placeholders.get(next).start() < end) {
            slots[next++] = Slot.refused(reason);
        }
    }

    private void refuseAll(String reason) {
        for (int p = 0; p < slots.length; p++) {
            if (slots[p] == null || slots[p].refused() == null) {
                slots[p] = Slot.refused(reason);
            }
        }
    }

    private int push(Mode mode, int to) {
        endWord();
        wordStart = false;
        word.append('\0');
        stack.push(new Frame(mode));
        return to;
    }

    private int pop(int to) {
        stack.pop();
        wordStart = false;
        return to;
    }

    /** A word ends: is it the {@code case} keyword inside a {@code $( )}? */
    private void endWord() {
        if (lostAt == null && stack.peek().mode == Mode.SUB && word.toString().equals("case")) {
            lostAt =
                    "after a 'case' inside $( ), whose patterns' ')' hide where the substitution ends; move it into a script";
        }
        word.setLength(0);
        wordStart = true;
    }

    /** True if the text at {@code i} ends a word: the end, a blank or an operator. */
    private boolean endsWord(int i) {
        return i >= s.length() || " \t\n;&|()<>".indexOf(s.charAt(i)) >= 0;
    }
}
