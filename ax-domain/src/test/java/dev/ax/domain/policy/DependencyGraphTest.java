package dev.ax.domain.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DependencyGraphTest {
    /** The classic chain: three sync layers, a report on all three, a mail on the report; daily also waits for itself. */
    static final Map<String, List<String>> SEED = Map.of(
            "layer1", List.of(),
            "layer2", List.of("layer1"),
            "layer3", List.of("layer2"),
            "report", List.of("layer3", "layer1", "layer2"),
            "mail", List.of("report"),
            "daily", List.of("daily"));

    @Test
    void finds_no_cycle_in_a_chain_and_ignores_a_previous_slot_self_edge() {
        assertThat(DependencyGraph.cycle("report", SEED)).isEmpty();
        assertThat(DependencyGraph.cycle("daily", SEED)).isEmpty();
    }

    @Test
    void names_the_cycle() {
        Map<String, List<String>> g =
                Map.of("a", List.of("b"), "b", List.of("c"), "c", List.of("a"), "x", List.of("a"));
        assertThat(DependencyGraph.cycle("a", g)).contains(List.of("a", "b", "c", "a"));
        assertThat(DependencyGraph.cycle("x", g)).isEmpty();
        assertThat(DependencyGraph.cycle("a", Map.of("a", List.of("a2"), "a2", List.of("a"))))
                .contains(List.of("a", "a2", "a"));
    }

    @Test
    void dependents_come_in_dependency_order() {
        assertThat(DependencyGraph.dependents("layer1", SEED)).containsExactly("layer2", "layer3", "report", "mail");
        assertThat(DependencyGraph.dependents("layer3", SEED)).containsExactly("report", "mail");
        assertThat(DependencyGraph.dependents("mail", SEED)).isEmpty();
        assertThat(DependencyGraph.dependents("daily", SEED)).isEmpty();
    }
}
