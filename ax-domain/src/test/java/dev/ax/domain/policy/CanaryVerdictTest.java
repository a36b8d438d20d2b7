package dev.ax.domain.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CanaryVerdictTest {
    @ParameterizedTest(name = "canary {0} ok/{1} failed, stable {2} ok/{3} failed, margin {4}, min {5} -> rollback {6}")
    @CsvSource({
        // too few canary runs ended: keep, whatever the rates
        "0, 2, 10, 0, 20, 3, false",
        "0, 0,  0, 0, 20, 3, false",
        // enough runs, all failing, stable all fine
        "0, 3, 10, 0, 20, 3, true",
        // stable never ran: its rate counts as 0 %
        "0, 3,  0, 0, 20, 3, true",
        // 1 of 3 failed (33 %) vs 0 %: above a 20 point margin
        "2, 1, 10, 0, 20, 3, true",
        // ... but not above a 40 point margin
        "2, 1, 10, 0, 40, 3, false",
        // exactly at the margin is kept: only 'exceeds' rolls back (30 % vs 10 %, margin 20)
        "7, 3,  9, 1, 20, 3, false",
        // both fail alike: not the canary's fault
        "0, 5,  0, 5, 20, 3, false",
        "1, 4,  2, 8, 20, 3, false",
        // all succeeding
        "5, 0,  5, 0, 20, 3, false",
        // margin 0: any worse rate rolls back
        "9, 1, 10, 0,  0, 3, true",
        // minimum of 1 run
        "0, 1,  0, 0, 20, 1, true",
    })
    void decides_by_rates_margin_and_minimum(
            long cOk, long cFail, long sOk, long sFail, int margin, int min, boolean rollback) {
        CanaryVerdict v = CanaryVerdict.decide(cOk, cFail, sOk, sFail, margin, min);
        assertThat(v.rollback()).isEqualTo(rollback);
        assertThat(v.reason()).startsWith(rollback ? "rollback: " : "keep: ").contains("margin " + margin + " points");
    }
}
