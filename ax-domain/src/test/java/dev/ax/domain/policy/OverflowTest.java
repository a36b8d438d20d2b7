package dev.ax.domain.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.policy.Overflow.Admission;
import dev.ax.domain.task.OverflowPolicy;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One row per policy, with the task idle and busy. */
class OverflowTest {

    @ParameterizedTest(name = "{0}, max {1}, queueLimit {2}, active {3}, waiting {4} -> {5}")
    @CsvSource(
            nullValues = "-",
            value = {
                // idle: every policy runs
                "QUEUE,     1, -, 0, 0, RUN",
                "QUEUE_ONE, 1, -, 0, 0, RUN",
                "SKIP,      1, -, 0, 0, RUN",
                "REPLACE,   1, -, 0, 0, RUN",
                "ALLOW,     1, -, 0, 0, RUN",
                // below the limit
                "SKIP,      3, -, 2, 0, RUN",
                // busy
                "QUEUE,     1, -, 1, 0, QUEUE",
                "QUEUE,     1, -, 1, 7, QUEUE",
                "QUEUE,     1, 2, 1, 1, QUEUE",
                "QUEUE,     1, 2, 1, 2, DROP_QUEUE_FULL",
                "QUEUE,     1, 0, 1, 0, DROP_QUEUE_FULL",
                "QUEUE_ONE, 1, -, 1, 0, QUEUE_REPLACING_WAITING",
                "QUEUE_ONE, 1, -, 1, 3, QUEUE_REPLACING_WAITING",
                "SKIP,      1, -, 1, 0, SKIP",
                "REPLACE,   1, -, 1, 0, REPLACE_ACTIVE",
                "ALLOW,     1, -, 50, 0, RUN",
                // a free slot but others waiting: the newcomer does not jump the queue
                "QUEUE,     2, -, 1, 1, QUEUE",
                "SKIP,      2, -, 1, 1, SKIP"
            })
    void decides(OverflowPolicy policy, int max, Integer queueLimit, int active, int waiting, Admission expected) {
        Overflow o = Overflow.decide(policy, max, queueLimit, active, waiting);
        assertThat(o.admission()).isEqualTo(expected);
        assertThat(o.reason()).isNotBlank();
    }
}
