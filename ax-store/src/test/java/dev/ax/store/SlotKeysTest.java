package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlotKeysTest {
    /** The fire key of a slot, as the firing loop writes it (Firing.fireKey). */
    private static String key(String instant) {
        return Instant.parse(instant).toString();
    }

    @Test
    void every_key_of_a_second_lies_between_its_floor_and_the_next_seconds() {
        List<String> slots = List.of(
                "2026-11-29T02:00:00Z",
                "2026-11-29T02:00:00.001Z",
                "2026-11-29T02:00:00.5Z",
                "2026-11-29T02:00:00.999999999Z");
        for (String slot : slots) {
            String k = key(slot);
            assertThat(k.compareTo(SlotKeys.floor(Instant.parse("2026-11-29T02:00:00Z"))))
                    .as(k)
                    .isGreaterThanOrEqualTo(0);
            assertThat(k.compareTo(SlotKeys.ceiling(Instant.parse("2026-11-29T02:00:00.7Z"))))
                    .as(k)
                    .isLessThan(0);
            assertThat(k.compareTo(SlotKeys.floor(Instant.parse("2026-11-29T02:00:01Z"))))
                    .as(k)
                    .isLessThan(0);
            assertThat(k.compareTo(SlotKeys.ceiling(Instant.parse("2026-11-29T01:59:59.999Z"))))
                    .as(k)
                    .isGreaterThanOrEqualTo(0);
        }
        // Across minutes, days and years the bounds order as the instants do.
        assertThat(key("2026-12-31T23:59:59.5Z").compareTo(SlotKeys.floor(Instant.parse("2027-01-01T00:00:00Z"))))
                .isLessThan(0);
        assertThat(SlotKeys.ceiling(Instant.parse("2026-12-31T23:59:59Z"))).isEqualTo("2027-01-01T00:00:00");
        assertThat(key("9999-12-31T23:59:59.999Z").compareTo(SlotKeys.MAX)).isLessThan(0);
    }
}
