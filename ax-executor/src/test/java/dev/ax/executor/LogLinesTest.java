package dev.ax.executor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LogLinesTest {
    private static final ObjectMapper JSON = HttpExecutorChannel.defaultMapper();
    /** Characters whose JSON size differs: ASCII, escapes, controls, 2- and 3-byte UTF-8, both halves of an emoji. */
    private static final String POOL = "aZ9 \"\\/\n\t\u0000\u0001\u001féß任务\ud83d\ude00\ud800";

    /** What the string adds to a JSON array of strings: the bytes Jackson writes for it, plus a comma. */
    private static int written(String s) throws Exception {
        return JSON.writeValueAsBytes(List.of(s)).length - 2 + 1;
    }

    private static String random(Random random, int length) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++) {
            sb.append(POOL.charAt(random.nextInt(POOL.length())));
        }
        return sb.toString();
    }

    @Test
    void is_exact_for_printable_ascii() throws Exception {
        for (String s : List.of("", "hello world", "x".repeat(10_000))) {
            assertThat(LogLines.jsonBytes(s)).isEqualTo(written(s));
        }
    }

    @Test
    void never_counts_less_than_jackson_writes() throws Exception {
        Random random = new Random(42);
        for (int i = 0; i < 5_000; i++) {
            String s = random(random, random.nextInt(60));
            assertThat(LogLines.jsonBytes(s)).as("%s", s).isGreaterThanOrEqualTo(written(s));
        }
    }

    @Test
    void cuts_a_long_line_into_pieces_that_fit_and_add_up_to_it() throws Exception {
        Random random = new Random(7);
        for (int i = 0; i < 200; i++) {
            String line = random(random, 500 + random.nextInt(5_000));
            int max = 64 + random.nextInt(1_000);

            List<String> pieces = LogLines.pieces(line, max);

            assertThat(String.join("", pieces)).isEqualTo(line);
            for (int p = 0; p < pieces.size(); p++) {
                String piece = pieces.get(p);
                assertThat(piece).isNotEmpty();
                assertThat(written(piece)).isLessThanOrEqualTo(max);
                if (p + 1 < pieces.size()) {
                    // No cut between the two halves of an emoji.
                    boolean splitsAPair = Character.isHighSurrogate(piece.charAt(piece.length() - 1))
                            && Character.isLowSurrogate(pieces.get(p + 1).charAt(0));
                    assertThat(splitsAPair).as("cut inside a surrogate pair").isFalse();
                }
            }
        }
    }

    @Test
    void leaves_a_line_that_fits_whole() {
        assertThat(LogLines.pieces("short", 100)).containsExactly("short");
    }
}
