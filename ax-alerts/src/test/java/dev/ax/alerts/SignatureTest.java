package dev.ax.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The robots' signatures against vectors computed independently (Python's hmac, base64, urllib). */
class SignatureTest {
    @Test
    void dingtalk_signs_timestamp_newline_secret_with_the_secret_url_encoded() {
        assertThat(DingTalkChannel.sign(1700000000000L, "SEC0123456789abcdef"))
                .isEqualTo("TSZbRFUuvaSQaRKUpF970OPCb2%2FLcQAP3wOvwZIzBZk%3D");
    }

    @Test
    void feishu_signs_an_empty_message_with_timestamp_newline_secret_as_the_key() {
        assertThat(RobotChannel.feishuSign(1700000000L, "SEC0123456789abcdef"))
                .isEqualTo("PiO7POLlSx/DM2qf8Dy/XCWeJK3exVnevp5G99LEN2M=");
    }
}
