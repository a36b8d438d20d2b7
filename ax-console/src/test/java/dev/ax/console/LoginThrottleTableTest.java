package dev.ax.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.time.SettableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The throttle's table on its own: bounded, by /64 for IPv6, failures forgotten as they age. */
class LoginThrottleTableTest {
    final SettableClock clock = new SettableClock(Instant.parse("2026-03-01T10:00:00Z"));

    @Test
    void the_table_never_holds_more_addresses_than_its_bound() {
        LoginThrottle throttle = new LoginThrottle(clock, 3, Duration.ofMinutes(5), 100);
        for (int i = 0; i < 5_000; i++) {
            throttle.failed("10.0." + (i / 250) + "." + (i % 250));
        }
        assertThat(throttle.addresses()).isEqualTo(100);
    }

    @Test
    void an_address_that_keeps_being_refused_stays_while_quiet_ones_are_forgotten() {
        LoginThrottle throttle = new LoginThrottle(clock, 3, Duration.ofMinutes(5), 100);
        for (int i = 0; i < 3; i++) {
            throttle.failed("192.0.2.1");
        }
        for (int i = 0; i < 1_000; i++) {
            throttle.failed("10.1." + (i / 250) + "." + (i % 250));
            assertThat(throttle.blockedUntil("192.0.2.1")).isPresent(); // each refusal keeps it in the table
        }
    }

    @Test
    void ipv6_clients_count_by_their_64_bit_network() {
        LoginThrottle throttle = new LoginThrottle(clock, 2, Duration.ofMinutes(5), 100);
        throttle.failed("2001:db8:0:7::1");
        throttle.failed("[2001:db8:0:7:ffff::2]");

        assertThat(throttle.blockedUntil("2001:db8:0:7::99")).isPresent();
        assertThat(throttle.blockedUntil("2001:db8:0:8::1")).isEmpty();
        assertThat(LoginThrottle.key("0:0:0:0:0:0:0:1"))
                .isEqualTo(LoginThrottle.key("::1"))
                .isEqualTo("0000000000000000::/64");
        assertThat(LoginThrottle.key("192.0.2.1")).isEqualTo("192.0.2.1");
    }

    @Test
    void failures_older_than_the_window_no_longer_count_and_leave_the_table() {
        LoginThrottle throttle = new LoginThrottle(clock, 2, Duration.ofMinutes(5), 100);
        throttle.failed("192.0.2.1");
        clock.advance(Duration.ofMinutes(3));
        throttle.failed("192.0.2.1");
        assertThat(throttle.blockedUntil("192.0.2.1")).hasValue(Instant.parse("2026-03-01T10:05:00Z"));

        clock.advance(Duration.ofMinutes(2));
        assertThat(throttle.blockedUntil("192.0.2.1")).isEmpty();
        clock.advance(Duration.ofMinutes(3));
        assertThat(throttle.blockedUntil("192.0.2.1")).isEmpty();
        assertThat(throttle.addresses()).isZero();
    }
}
