package dev.ax.executor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.secret.SecretMask;
import dev.ax.executor.shell.OutputSink;
import dev.ax.executor.shell.OutputSink.Stream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A run's secrets masked in its output as it streams: whole in a line, across pieces of a long line, per stream. */
class MaskingSinkTest {
    static final String SECRET = "hunter22-secret";

    final List<String> out = new ArrayList<>();
    final OutputSink collector = new OutputSink() {
        @Override
        public void line(Stream stream, String line) {
            out.add(stream + " line " + line);
        }

        @Override
        public void piece(Stream stream, String piece) {
            out.add(stream + " piece " + piece);
        }
    };

    @Test
    void a_value_in_a_line_is_masked_and_nothing_is_held() {
        OutputSink sink = MaskingSink.of(SecretMask.of(List.of(SECRET)), collector);

        sink.line(Stream.STDOUT, "pw=" + SECRET);
        sink.line(Stream.STDERR, "no secret here");

        assertThat(out).containsExactly("STDOUT line pw=***", "STDERR line no secret here");
    }

    @Test
    void a_value_cut_by_a_piece_boundary_is_held_back_and_masked_whole() {
        OutputSink sink = MaskingSink.of(SecretMask.of(List.of(SECRET)), collector);

        sink.piece(Stream.STDOUT, "x".repeat(20) + SECRET.substring(0, 6));
        sink.piece(Stream.STDOUT, SECRET.substring(6) + "y".repeat(20));
        sink.line(Stream.STDOUT, "z");

        assertThat(String.join(
                        "",
                        out.stream()
                                .map(s -> s.replaceFirst("^STDOUT (piece|line) ", ""))
                                .toList()))
                .isEqualTo("x".repeat(20) + "***" + "y".repeat(20) + "z");
        assertThat(out).allSatisfy(s -> assertThat(s).doesNotContain("hunter"));
        assertThat(out.getLast()).startsWith("STDOUT line ");
    }

    @Test
    void each_stream_holds_its_own_piece() {
        OutputSink sink = MaskingSink.of(SecretMask.of(List.of(SECRET)), collector);

        sink.piece(Stream.STDOUT, "a" + SECRET.substring(0, 4));
        sink.line(Stream.STDERR, "between");
        sink.line(Stream.STDOUT, SECRET.substring(4));

        assertThat(out).contains("STDERR line between");
        assertThat(String.join("|", out)).doesNotContain("hunter").contains("***");
    }

    @Test
    void a_piece_is_never_cut_inside_a_character_of_two_chars() {
        OutputSink sink = MaskingSink.of(SecretMask.of(List.of("abcdef")), collector);
        String smiley = "\uD83D\uDE00";

        sink.piece(Stream.STDOUT, "xxxxxxxxxx" + smiley + "1234");
        sink.line(Stream.STDOUT, "");

        assertThat(out).containsExactly("STDOUT piece xxxxxxxxxx", "STDOUT line " + smiley + "1234");
    }

    @Test
    void with_nothing_to_mask_the_sink_is_the_one_given() {
        assertThat(MaskingSink.of(SecretMask.NONE, collector)).isSameAs(collector);
    }
}
