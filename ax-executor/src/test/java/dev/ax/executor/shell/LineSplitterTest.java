package dev.ax.executor.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineSplitterTest {

    private final List<String> lines = new ArrayList<>();

    private void feed(int max, String... chunks) {
        LineSplitter s = new LineSplitter(max, lines::add);
        for (String c : chunks) {
            byte[] b = c.getBytes(StandardCharsets.UTF_8);
            s.feed(b, 0, b.length);
        }
        s.finish();
    }

    @Test
    void splitsOnNewlineAcrossChunksAndKeepsEmptyLines() {
        feed(16, "ab", "c\nde", "\n\nf");
        assertThat(lines).containsExactly("abc", "de", "", "f");
    }

    @Test
    void stripsCrBeforeNewlineOnly() {
        feed(16, "a\r\nb\rc\n");
        assertThat(lines).containsExactly("a", "b\rc");
    }

    @Test
    void noTrailingEmptyLineAfterFinalNewline() {
        feed(16, "a\n");
        assertThat(lines).containsExactly("a");
    }

    @Test
    void lineOfExactlyMaxIsOneLine_maxPlusOneIsTwo() {
        feed(4, "abcd\nabcde\n");
        assertThat(lines).containsExactly("abcd", "abcd", "e");
    }

    @Test
    void neverCutsThroughAMultiByteCharacter() {
        // "aa€" is 2 + 3 bytes; with a 4-byte cap the cut must come before the euro sign.
        feed(4, "aa\u20ac\u20acb");
        assertThat(lines).containsExactly("aa", "\u20ac", "\u20acb");
        assertThat(String.join("", lines)).isEqualTo("aa\u20ac\u20acb");
    }

    @Test
    void fourByteCharacters() {
        String s = "x" + "\uD83D\uDE00".repeat(3); // 1 + 3*4 bytes
        feed(6, s);
        assertThat(lines).allSatisfy(l -> assertThat(l).doesNotContain("\uFFFD"));
        assertThat(String.join("", lines)).isEqualTo(s);
    }

    @Test
    void piecesOfALongLineGoToTheirOwnConsumerAndTheLineEndsAsALine() {
        List<String> pieces = new ArrayList<>();
        LineSplitter s = new LineSplitter(4, lines::add, pieces::add);
        byte[] b = "abcdefghij\nk".getBytes(StandardCharsets.UTF_8);
        s.feed(b, 0, b.length);
        s.finish();
        assertThat(pieces).containsExactly("abcd", "efgh");
        assertThat(lines).containsExactly("ij", "k");
    }
}
