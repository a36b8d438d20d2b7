package dev.ax.executor;

import java.util.ArrayList;
import java.util.List;

/**
 * Sizes of log lines as they travel: inside a JSON request body. A server refuses bodies over its size limit,
 * so whoever batches lines (the shell executor's {@code LogShipper}, the SDK's run log) counts them in these
 * bytes, not in characters: a line of control characters grows sixfold as JSON ({@code \u0001}), a line of
 * emoji threefold (Jackson escapes each half of a surrogate pair).
 */
public final class LogLines {
    private LogLines() {}

    /**
     * An upper bound of the bytes {@code line} takes as a JSON string in UTF-8, quotes and the comma after it
     * included: exact for printable ASCII, never less than what Jackson writes.
     */
    public static int jsonBytes(String line) {
        int n = 3;
        for (int i = 0; i < line.length(); i++) {
            n += jsonBytes(line.charAt(i));
        }
        return n;
    }

    private static int jsonBytes(char c) {
        if (c < 0x20) {
            return 6; // \u0001; \n and \t take 2, but a bound needs no more precision
        }
        if (c == '"' || c == '\\') {
            return 2;
        }
        if (c < 0x80) {
            return 1;
        }
        if (c < 0x800) {
            return 2;
        }
        return Character.isSurrogate(c) ? 6 : 3;
    }

    /**
     * {@code line} cut into pieces of at most {@code maxJsonBytes} each ({@link #jsonBytes}), never inside a
     * surrogate pair; the line itself when it fits. A piece holds at least one character, so a bound below
     * the largest character's size still makes progress.
     */
    public static List<String> pieces(String line, int maxJsonBytes) {
        if (jsonBytes(line) <= maxJsonBytes) {
            return List.of(line);
        }
        List<String> pieces = new ArrayList<>();
        int start = 0;
        int bytes = 3;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            int size = jsonBytes(c);
            boolean pairStart = Character.isHighSurrogate(c)
                    && i + 1 < line.length()
                    && Character.isLowSurrogate(line.charAt(i + 1));
            int needed = pairStart ? size + jsonBytes(line.charAt(i + 1)) : size;
            if (i > start && bytes + needed > maxJsonBytes) {
                pieces.add(line.substring(start, i));
                start = i;
                bytes = 3;
            }
            bytes += size;
            if (pairStart) {
                bytes += jsonBytes(line.charAt(++i));
            }
        }
        pieces.add(line.substring(start));
        return pieces;
    }
}
