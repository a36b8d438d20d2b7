package dev.ax.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientAddressTest {
    static String literal(String text) {
        return ClientAddress.literal(text).map(InetAddress::getHostAddress).orElse(null);
    }

    @Test
    void reads_ip_addresses_written_as_digits_with_or_without_a_port() {
        assertThat(literal("203.0.113.7")).isEqualTo("203.0.113.7");
        assertThat(literal(" 203.0.113.7:8443 ")).isEqualTo("203.0.113.7");
        assertThat(literal("2001:db8::1")).isEqualTo("2001:db8:0:0:0:0:0:1");
        assertThat(literal("[2001:db8::1]:443")).isEqualTo("2001:db8:0:0:0:0:0:1");
        assertThat(literal("[::1]")).isEqualTo("0:0:0:0:0:0:0:1");
    }

    @Test
    void takes_nothing_else_and_never_asks_dns() {
        // Host names would be looked up by InetAddress; none of these may be.
        for (String text : List.of(
                "localhost",
                "example.com",
                "abc",
                "999.1.1.1",
                "1.2.3",
                "1.2.3.4.5",
                "::zz",
                ".::1",
                "unknown",
                "",
                "_hidden")) {
            assertThat(literal(text)).as(text).isNull();
        }
        assertThat(ClientAddress.literal(null)).isEmpty();
    }

    @Test
    void a_trusted_proxy_must_be_an_address() {
        assertThatThrownBy(() -> HttpOptions.DEFAULT.withTrustedProxies(List.of("proxy.internal")))
                .hasMessage("--trusted-proxy must be an IP address like 10.0.0.5 or fd00::5, was 'proxy.internal'");
        assertThat(HttpOptions.DEFAULT
                        .withTrustedProxies(List.of("10.0.0.5", "fd00::5"))
                        .trustedProxies())
                .hasSize(2);
    }

    @Test
    void the_request_size_limit_must_leave_room_for_an_executors_largest_request() {
        assertThatThrownBy(() -> HttpOptions.DEFAULT.withMaxRequestBytes(1000))
                .hasMessage(
                        "--max-request-size must be between 262144 (256 KiB) and 67108864 (64 MiB) bytes, was 1000");
        assertThat(HttpOptions.DEFAULT.maxRequestBytes()).isEqualTo(1024 * 1024);
    }
}
