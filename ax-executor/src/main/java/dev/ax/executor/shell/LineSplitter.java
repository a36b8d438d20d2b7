package dev.ax.executor.shell;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Cuts a byte stream into UTF-8 lines. Not thread-safe: one run per stream, fed by one reader thread.
 *
 * <p>A line ends at {@code \n}; the {@code \n} and a {@code \r} right before it are stripped. A line longer than
 * {@code maxLineBytes} is emitted in pieces of at most that many bytes, cut before a multi-byte UTF-8 character rather
 * than through it; pieces go to their own consumer (by default the lines'), and a piece is always followed by more of
 * its line, ending with a line. {@link #finish()} emits a last line that had no newline.
 */
final class LineSplitter {

    private final byte[] line;
    private final Consumer<String> out;
    private final Consumer<String> pieces;
    private int size;

    LineSplitter(int maxLineBytes, Consumer<String> out) {
        this(maxLineBytes, out, out);
    }

    LineSplitter(int maxLineBytes, Consumer<String> out, Consumer<String> pieces) {
        if (maxLineBytes < 4) {
            throw new IllegalArgumentException("maxLineBytes must be at least 4");
        }
        this.line = new byte[maxLineBytes];
        this.out = out;
        this.pieces = pieces;
    }

    void feed(byte[] buf, int off, int len) {
        int end = off + len;
        int start = off;
        for (int i = off; i < end; i++) {
            if (buf[i] == '\n') {
                append(buf, start, i - start);
                emitLine();
                start = i + 1;
            }
        }
        append(buf, start, end - start);
    }

    /** End of stream: emit what is left as a final line (if anything). */
    void finish() {
        if (size > 0) {
            emit(size);
        }
    }

    private void append(byte[] buf, int off, int len) {
        while (len > 0) {
            if (size == line.length) {
                emitPiece();
            }
            int n = Math.min(len, line.length - size);
            System.arraycopy(buf, off, line, size, n);
            size += n;
            off += n;
            len -= n;
        }
    }

    private void emitLine() {
        int n = size;
        if (n > 0 && line[n - 1] == '\r') {
            n--;
        }
        emit(n);
        size = 0;
    }

    /** The buffer is full and the line goes on: emit a piece, cut at a UTF-8 character boundary. */
    private void emitPiece() {
        int cut = utf8Boundary();
        pieces.accept(new String(line, 0, cut, StandardCharsets.UTF_8));
        System.arraycopy(line, cut, line, 0, size - cut);
        size -= cut;
    }

    private void emit(int n) {
        out.accept(new String(line, 0, n, StandardCharsets.UTF_8));
    }

    /** Largest cut <= size that does not split a (well-formed) multi-byte character; size itself if none is open. */
    private int utf8Boundary() {
        // Find the lead byte of the last character: skip at most 3 continuation bytes (10xxxxxx).
        int i = size - 1;
        int stop = Math.max(0, size - 4);
        while (i > stop && (line[i] & 0xC0) == 0x80) {
            i--;
        }
        int lead = line[i] & 0xFF;
        int charLen = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        if (i > 0 && i + charLen > size) {
            return i; // the last character is incomplete: keep it for the next piece
        }
        return size;
    }
}
