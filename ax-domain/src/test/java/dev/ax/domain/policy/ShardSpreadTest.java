package dev.ax.domain.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ShardSpreadTest {
    static Stream<Arguments> cases() {
        return Stream.of(
                // running, maxParallel, mine, others, waitedPastGrace, take
                Arguments.of("first shard of a run", 0, null, 0, List.of(0), false, true),
                Arguments.of("one each, none idle", 2, null, 1, List.of(1), false, true),
                Arguments.of("another executor is idle", 1, null, 1, List.of(0), false, false),
                Arguments.of("another executor runs fewer", 3, null, 2, List.of(1, 2), false, false),
                Arguments.of(
                        "the idle one is not polling: the shard waited past the grace",
                        1,
                        null,
                        1,
                        List.of(0),
                        true,
                        true),
                Arguments.of("alone in the group", 3, null, 3, List.of(), false, true),
                Arguments.of("maxParallelShards reached", 1, 1, 0, List.of(0), false, false),
                Arguments.of("maxParallelShards reached even after the grace", 2, 2, 1, List.of(1), true, false),
                Arguments.of("below maxParallelShards", 1, 2, 0, List.of(1), false, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void decides_whether_an_executor_takes_another_shard(
            String name,
            int running,
            Integer maxParallel,
            int mine,
            List<Integer> others,
            boolean waited,
            boolean take) {
        assertThat(ShardSpread.decide(running, maxParallel, mine, others, waited)
                        .take())
                .isEqualTo(take);
    }
}
