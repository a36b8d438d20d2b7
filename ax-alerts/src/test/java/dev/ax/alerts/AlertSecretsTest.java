package dev.ax.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.protocol.RunRef;
import dev.ax.store.TestDatabases;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Alert texts write *** for secrets, also for output stored before the secret existed; the outbox never holds a value. */
class AlertSecretsTest {
    static final String TOKEN = "tok-0b7e3f9c41";
    Rig rig;

    @AfterEach
    void close() {
        rig.close();
    }

    @Test
    void a_failure_alert_quoting_a_log_tail_that_holds_a_secret_shows_stars() {
        rig = new Rig(TestDatabases.h2(), Rig::hookConfig);
        rig.task("partner_sync", Map.of("type", "event"), Map.of("notifyOnFailure", List.of("hook")));
        long id = rig.trigger("partner_sync");
        // Output stored as it was, before the secret existed (the dispatcher masks only what it knows of).
        rig.store.tx(tx -> {
            rig.store.logs().append(tx, new RunRef(id, 1), "stdout", List.of("calling partner with " + TOKEN));
            return null;
        });
        rig.node.secrets().set("partner_token", TOKEN, "alice");

        rig.finish(id, false, "refused: " + TOKEN);
        rig.pump();

        assertThat(rig.received)
                .singleElement()
                .asString()
                .contains("calling partner with ***", "refused: ***")
                .doesNotContain(TOKEN);
        List<String> outbox = rig.store.tx(tx -> tx.query("SELECT content FROM ax_alert", r -> r.str("content")));
        assertThat(outbox).isNotEmpty().allSatisfy(c -> assertThat(c).doesNotContain(TOKEN));
        assertThat(rig.alertsOf("RUN_FAILED"))
                .singleElement()
                .satisfies(a -> assertThat(a.text()).doesNotContain(TOKEN));
    }
}
