package dev.ax.domain.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ShardingTest {
    @Test
    void a_fixed_count_ignores_the_executors_and_broadcast_follows_them() {
        assertThat(Sharding.fixed(4).total(2)).isEqualTo(4);
        assertThat(Sharding.broadcastToAll().total(3)).isEqualTo(3);
        assertThat(Sharding.broadcastToAll().total(0)).isEqualTo(1);
    }

    @Test
    void refuses_an_impossible_shape() {
        assertThatThrownBy(() -> new Sharding(null, false, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Sharding(2, true, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Sharding(0, false, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Sharding(2, false, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
