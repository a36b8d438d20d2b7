package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The only test of the bench module: its formats. Benchmarks themselves never run in the test build. */
class TableTest {
    @Test
    void ratiosReadAsTheTablePrintsThem() {
        assertThat(Table.ratio(1700, 1000)).isEqualTo("1.7×");
        assertThat(Table.ratio(250, 1000)).isEqualTo("0.25×");
        assertThat(Table.ratio(12_000, 1000)).isEqualTo("12×");
        assertThat(Table.ratio(5, 0)).isEqualTo("n/a");
        assertThat(Table.ratio(Double.NaN, 3)).isEqualTo("n/a");
    }

    @Test
    void durationsAndRates() {
        assertThat(Table.ms(7L)).isEqualTo("7 ms");
        assertThat(Table.ms(1100L)).isEqualTo("1.1 s");
        assertThat(Table.ms(39_000L)).isEqualTo("39 s");
        assertThat(Table.ms(Double.NaN)).isEqualTo("n/a");
        assertThat(Table.num(4976.4)).isEqualTo("4,976");
        assertThat(Table.median(3, 1, 2)).isEqualTo(2.0);
    }

    @Test
    void tablesAlignTheirColumns() {
        String out = new Table("t", "system", "runs/s", "goal")
                .row("AX", "1,000", "100 % of demand")
                .row("db-scheduler", "833", "-")
                .render();
        assertThat(out)
                .contains("system       | runs/s | goal")
                .contains("AX           |  1,000 | 100 % of demand")
                .contains("db-scheduler |    833 | -");
    }

    @Test
    void w1CountsMissedSlotsAndDuplicates() {
        RunLog log = new RunLog();
        // Two tasks, window [10 s, 13 s): slots 10, 11, 12 each. Task 1 misses slot 12; task 2 runs slot 11 twice.
        log.add(1, 10_000, 10_005);
        log.add(1, 11_000, 11_005);
        log.add(2, 10_000, 10_010);
        log.add(2, 11_000, 11_010);
        log.add(2, 11_000, 11_020);
        log.add(2, 12_000, 12_100);
        W1Stats.Figures f = W1Stats.evaluate(log.snapshot(), 2, 10_000, 13_000, 0);
        assertThat(f.runs()).isEqualTo(6);
        assertThat(f.duplicates()).isEqualTo(1);
        assertThat(f.expectedSlots()).isEqualTo(6);
        assertThat(f.missedSlots()).isEqualTo(1);
        assertThat(f.lagMax()).isEqualTo(100);
    }
}
