package dev.ax.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AlertsConfigReaderTest {
    static final String FULL = """
            {"channels": {
               "email": {"type": "email", "host": "smtp.example.com", "port": 587, "tls": true, "username": "ax",
                         "password": "${env:SMTP_PASSWORD}", "from": "ax@example.com", "to": ["ops@example.com"]},
               "dingtalk": {"type": "dingtalk", "webhook": "https://oapi.dingtalk.com/robot/send?access_token=tok123",
                            "secret": "SECabcdef"},
               "ops": {"type": "webhook", "url": "https://hooks.example.com/ax", "headers": {"Authorization": "Bearer hush"}},
               "lark": {"type": "feishu", "webhook": "https://open.feishu.cn/open-apis/bot/v2/hook/x", "secret": "s3cr3t"}},
             "consoleUrl": "http://ax.example:7070/",
             "systemChannels": ["ops"],
             "stormLimit": 5,
             "watchdog": {"intervalSeconds": 10, "silenceSeconds": 120},
             "anomaly": {"windowMinutes": 30},
             "logs": {"runMaxMB": 2, "runRetentionDays": 7}}
            """;

    @Test
    void reads_every_channel_type_and_setting() {
        AlertsConfig c = AlertsConfigReader.parse(FULL, Map.of("SMTP_PASSWORD", "p4ss")::get);
        assertThat(c.channels()).containsOnlyKeys("email", "dingtalk", "ops", "lark");
        var email = (ChannelConfig.Email) c.channels().get("email");
        assertThat(email.password()).isEqualTo("p4ss");
        assertThat(email.tls()).isTrue();
        assertThat(c.consoleUrl()).isEqualTo("http://ax.example:7070");
        assertThat(c.systemChannels()).containsExactly("ops");
        assertThat(c.stormLimit()).isEqualTo(5);
        assertThat(c.watch().interval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.watch().silence()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.watch().loopStall()).isEqualTo(AlertsConfig.Watch.DEFAULT_LOOP_STALL);
        assertThat(c.anomaly().window()).isEqualTo(Duration.ofMinutes(30));
        assertThat(c.logs().runMaxBytes()).isEqualTo(2L * 1024 * 1024);
    }

    @Test
    void secrets_never_show_in_to_string() {
        AlertsConfig c = AlertsConfigReader.parse(FULL, Map.of("SMTP_PASSWORD", "p4ss")::get);
        String all = c.toString();
        assertThat(all)
                .doesNotContain("p4ss", "tok123", "SECabcdef", "hush", "s3cr3t")
                .contains("oapi.dingtalk.com");
    }

    @Test
    void names_the_field_of_each_mistake() {
        assertThatThrownBy(() -> AlertsConfigReader.parse("""
                {"channels": {"mail": {"type": "email", "host": "smtp.x", "port": 99999, "from": "not an address", "to": [],
                                       "pasword": "x"},
                              "hook": {"type": "webhook", "url": "ftp://x"},
                              "pager": {"type": "pagerduty"}},
                 "systemChannels": ["nope"]}
                """, k -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("channels.mail.pasword: unknown field")
                .hasMessageContaining("channels.mail.port: must be a number between 1 and 65535")
                .hasMessageContaining("channels.mail.from: not a valid e-mail address")
                .hasMessageContaining("channels.mail.to: at least one recipient")
                .hasMessageContaining("channels.hook.url: must be an http:// or https:// URL")
                .hasMessageContaining("channels.pager.type: unknown channel type 'pagerduty'")
                .hasMessageContaining("systemChannels[0]: 'nope' is not one of the channels");
    }

    @Test
    void a_missing_environment_variable_is_a_mistake_too() {
        assertThatThrownBy(() -> AlertsConfigReader.parse(FULL, k -> null))
                .hasMessageContaining("channels.email.password: environment variable SMTP_PASSWORD is not set");
    }

    @Test
    void without_system_channels_watchdog_alerts_go_to_every_channel() {
        AlertsConfig c = AlertsConfigReader.parse("""
                {"channels": {"a": {"type": "slack", "webhook": "https://hooks.slack.com/x"},
                              "b": {"type": "wecom", "webhook": "https://qyapi.weixin.qq.com/x"}}}
                """, k -> null);
        assertThat(c.systemChannels()).containsExactly("a", "b");
    }

    @Test
    void a_channel_may_name_its_language_and_the_others_speak_the_servers() {
        AlertsConfig c = AlertsConfigReader.parse("""
                {"channels": {"dingtalk": {"type": "dingtalk", "webhook": "https://oapi.dingtalk.com/robot/send?t=1",
                                           "language": "zh-CN"},
                              "wecom": {"type": "wecom", "webhook": "https://qyapi.weixin.qq.com/x", "language": "zh_cn"},
                              "mail": {"type": "email", "host": "smtp.x", "from": "ax@example.com", "to": ["a@example.com"],
                                       "language": "en"},
                              "ops": {"type": "webhook", "url": "https://hooks.example.com/ax"}}}
                """, k -> null);
        assertThat(c.languageOf("dingtalk")).isEqualTo(AlertWords.ZH_CN);
        assertThat(c.languageOf("wecom")).isEqualTo(AlertWords.ZH_CN);
        assertThat(c.languageOf("mail")).isEqualTo(AlertWords.EN);
        assertThat(c.languageOf("ops")).isEqualTo(AlertsConfig.DEFAULT_LANGUAGE);
        AlertsConfig chinese = c.withLanguage(AlertWords.ZH_CN);
        assertThat(chinese.languageOf("ops")).isEqualTo(AlertWords.ZH_CN);
        assertThat(chinese.languageOf("mail")).isEqualTo(AlertWords.EN);
    }

    @Test
    void a_language_alerts_are_not_written_in_is_refused_with_its_field() {
        assertThatThrownBy(() -> AlertsConfigReader.parse("""
                {"channels": {"lark": {"type": "feishu", "webhook": "https://open.feishu.cn/x", "language": "ja"},
                              "ops": {"type": "webhook", "url": "https://hooks.example.com/ax", "language": 7}}}
                """, k -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("channels.lark.language: must be one of en, zh-CN (leave it out for the server's"
                        + " --locale), was 'ja'")
                .hasMessageContaining("channels.ops.language: must be a non-empty string");
        assertThatThrownBy(() -> AlertsConfig.NONE.withLanguage(java.util.Locale.JAPANESE))
                .hasMessageContaining("language must be one of en, zh-CN, was ja");
    }
}
