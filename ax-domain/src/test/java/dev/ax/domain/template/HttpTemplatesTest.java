package dev.ax.domain.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Values in URLs, headers and bodies: encoded for where they land, never able to change the request's shape. */
class HttpTemplatesTest {
    private static TemplateContext ctx(Object v) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("v", v);
        params.put("n", new BigDecimal("12.50"));
        return new TemplateContext(
                        "t", Instant.parse("2026-11-30T02:00:00Z"), ZoneId.of("Asia/Shanghai"), params, 7, 1, "req")
                .withSecrets(Map.of("hook", "https://hooks.example.com/T0/B1?x=1", "pw", "p\"a&ss"));
    }

    @Test
    void url_values_are_percent_encoded_so_they_stay_inside_their_component() {
        assertThat(Templates.render(
                        "https://api.example.com/orders/{{params.v}}?at={{scheduledAt}}",
                        Target.URL,
                        ctx("../admin?x=1#f & é")))
                .isEqualTo(
                        "https://api.example.com/orders/..%2Fadmin%3Fx%3D1%23f%20%26%20%C3%A9?at=2026-11-30T10%3A00%3A00%2B08%3A00");
    }

    @Test
    void a_secret_may_hold_a_whole_url_and_starts_one() {
        assertThat(Templates.problems("{{secret.hook}}", Target.URL)).isEmpty();
        assertThat(Templates.render("{{secret.hook}}", Target.URL, ctx("x")))
                .isEqualTo("https://hooks.example.com/T0/B1?x=1");
        assertThat(Templates.problems("{{params.v}}/x", Target.URL))
                .singleElement()
                .asString()
                .contains("cannot start a URL");
    }

    @Test
    void json_values_are_escaped_inside_strings_and_written_as_values_outside() {
        String body =
                "{\"who\":\"{{params.v}}\",\"amount\":{{params.n}},\"raw\":{{params.v}},\"pw\":\"{{secret.pw}}\"}";
        assertThat(Templates.render(body, Target.JSON, ctx("a\",\"admin\":true,\"x\":\"\\\n")))
                .isEqualTo("{\"who\":\"a\\\",\\\"admin\\\":true,\\\"x\\\":\\\"\\\\\\n\",\"amount\":12.50,"
                        + "\"raw\":\"a\\\",\\\"admin\\\":true,\\\"x\\\":\\\"\\\\\\n\",\"pw\":\"p\\\"a&ss\"}");
        assertThat(Templates.render("{\"ids\":{{params.v}}}", Target.JSON, ctx(List.of("a", 1, true))))
                .isEqualTo("{\"ids\":[\"a\",1,true]}");
    }

    @Test
    void form_and_xml_bodies_encode_for_their_syntax() {
        assertThat(Templates.render("a={{params.v}}&b=1", Target.FORM, ctx("x&b=2")))
                .isEqualTo("a=x%26b%3D2&b=1");
        assertThat(Templates.render("<a n=\"{{params.v}}\">{{params.v}}</a>", Target.XML, ctx("\"/><x>&")))
                .isEqualTo("<a n=\"&quot;/&gt;&lt;x&gt;&amp;\">&quot;/&gt;&lt;x&gt;&amp;</a>");
    }

    @Test
    void a_header_value_with_a_line_break_is_refused_naming_the_parameter() {
        assertThatThrownBy(() -> Templates.render("Bearer {{params.v}}", Target.HEADER, ctx("x\r\nX-Admin: 1")))
                .isInstanceOf(TemplateException.class)
                .hasMessageContaining("line break")
                .extracting(e -> ((TemplateException) e).parameter())
                .isEqualTo("v");
        assertThat(Templates.render("Bearer {{secret.pw}}", Target.HEADER, ctx("x")))
                .isEqualTo("Bearer p\"a&ss");
    }

    @Test
    void a_string_body_is_read_by_its_content_type() {
        assertThat(Target.ofBody("application/json; charset=utf-8", "x")).isEqualTo(Target.JSON);
        assertThat(Target.ofBody("application/x-www-form-urlencoded", "x")).isEqualTo(Target.FORM);
        assertThat(Target.ofBody("text/xml", "x")).isEqualTo(Target.XML);
        assertThat(Target.ofBody("text/plain", "{\"a\":1}")).isEqualTo(Target.TEXT);
        assertThat(Target.ofBody(null, "  {\"a\":1}")).isEqualTo(Target.JSON);
        assertThat(Target.ofBody(null, "[1]")).isEqualTo(Target.JSON);
        assertThat(Target.ofBody(null, "{{params.body}}")).isEqualTo(Target.TEXT);
    }

    @Test
    void secrets_are_refused_where_text_is_stored_or_shown() {
        for (Target t : List.of(Target.COMMAND, Target.PATH, Target.KEY)) {
            assertThat(Templates.problems("x {{secret.pw}}", t))
                    .as(t.name())
                    .singleElement()
                    .asString()
                    .contains("may not appear");
        }
        for (Target t :
                List.of(Target.URL, Target.JSON, Target.FORM, Target.XML, Target.HEADER, Target.ENV, Target.TEXT)) {
            assertThat(Templates.problems("x/{{secret.pw}}", t)).as(t.name()).isEmpty();
        }
    }
}
