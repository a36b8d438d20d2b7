package dev.ax.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LogCapTest {
    @Test
    void a_log_within_the_cap_is_left_alone() {
        assertThat(LogCap.plan(chunks(10, 100), 1000)).isEmpty();
    }

    @Test
    void keeps_the_first_and_last_half_and_turns_the_first_dropped_chunk_into_the_marker() {
        // 20 chunks of 100 bytes, cap 1000: chunks 1-5 and 16-20 stay, 6 becomes the marker, 7-15 go.
        var plan = LogCap.plan(chunks(20, 100), 1000).orElseThrow();
        assertThat(plan.markerId()).isEqualTo(6L);
        assertThat(plan.delete()).containsExactly(7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L);
        assertThat(plan.removed()).isEqualTo(1000);
    }

    @Test
    void a_log_that_keeps_growing_is_cut_again_after_its_marker() {
        List<LogCap.Chunk> log = new ArrayList<>(chunks(5, 100));
        log.add(new LogCap.Chunk(6, 80, true));
        for (long id = 16; id <= 30; id++) {
            log.add(new LogCap.Chunk(id, 100, false));
        }
        var plan = LogCap.plan(log, 1000).orElseThrow();
        assertThat(plan.markerId()).isNull();
        assertThat(plan.delete()).containsExactly(16L, 17L, 18L, 19L, 20L, 21L, 22L, 23L, 24L, 25L);
    }

    private static List<LogCap.Chunk> chunks(int n, long bytes) {
        List<LogCap.Chunk> out = new ArrayList<>();
        for (long id = 1; id <= n; id++) {
            out.add(new LogCap.Chunk(id, bytes, false));
        }
        return out;
    }
}
