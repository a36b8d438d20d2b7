package dev.ax.executor;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.secret.SecretMask;
import dev.ax.executor.shell.OutputSink;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Writes {@code ***} for the values of a run's secrets ({@code WorkItem.masks}) in its output, before the output
 * leaves the executor. Output comes line by line, so a value that spans lines (a PEM key) is masked line by line
 * ({@link SecretMask}). A line longer than 64 KiB comes in pieces, and a piece boundary may cut a value: the last
 * (longest value − 1) characters of each piece wait for the rest of the line, so a value is always seen whole.
 */
final class MaskingSink implements OutputSink {
    private final SecretMask mask;
    private final OutputSink out;
    private final Map<Stream, String> held = new EnumMap<>(Stream.class); // guarded by this

    private MaskingSink(SecretMask mask, OutputSink out) {
        this.mask = mask;
        this.out = out;
    }

    /** {@code out} itself when there is nothing to mask. */
    static OutputSink of(SecretMask mask, OutputSink out) {
        return mask.isEmpty() ? out : new MaskingSink(mask, out);
    }

    @Override
    public synchronized void line(Stream stream, String line) {
        String before = held.remove(stream);
        out.line(stream, mask.apply(before == null ? line : before + line));
    }

    @Override
    public synchronized void piece(Stream stream, String piece) {
        String before = held.remove(stream);
        String text = mask.apply(before == null ? piece : before + piece);
        int cut = text.length() - Math.min(text.length(), mask.longest() - 1);
        if (cut > 0 && Character.isHighSurrogate(text.charAt(cut - 1))) {
            cut--; // never split a character made of two chars
        }
        if (cut > 0) {
            out.piece(stream, text.substring(0, cut));
        }
        held.put(stream, text.substring(cut));
    }

    /** {@code c} with its message and the output it carries masked. */
    static Completion masked(Completion c, SecretMask mask) {
        if (mask.isEmpty()) {
            return c;
        }
        List<LogChunk> tail = c.tail().stream()
                .map(chunk -> new LogChunk(chunk.executorId(), chunk.run(), chunk.stream(), mask.apply(chunk.lines())))
                .toList();
        return new Completion(
                c.executorId(),
                c.run(),
                c.success(),
                c.failureKind(),
                c.exitCode(),
                mask.apply(c.message()),
                c.pid(),
                tail);
    }
}
