package dev.ax.domain.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** How values land in shell commands: one literal word in the quoting context they stand in, or a refusal at save time. */
class CommandTemplatesTest {
    private static TemplateContext with(Object v) {
        return new TemplateContext(
                "t", Instant.parse("2026-11-30T02:00:00Z"), ZoneId.of("UTC"), Map.of("v", v), 7, 1, "req");
    }

    private static String render(String command, Object v) {
        return Templates.render(command, Target.COMMAND, with(v));
    }

    static Stream<Arguments> quoting() {
        return Stream.of(
                // bare: plain values stay as they are, anything else is one single-quoted word
                Arguments.of("echo {{params.v}}", "2026-11-30", "echo 2026-11-30"),
                Arguments.of("echo {{params.v}}", "x; id; echo $(whoami)", "echo 'x; id; echo $(whoami)'"),
                Arguments.of("echo {{params.v}}", "it's", "echo 'it'\\''s'"),
                Arguments.of("echo {{params.v}}", "", "echo ''"),
                Arguments.of("echo {{params.v}}", "a\nb", "echo 'a\nb'"),
                Arguments.of("echo {{params.v}}", "`id`", "echo '`id`'"),
                Arguments.of("echo {{params.v}}", "*", "echo '*'"),
                // would be an assignment as a first word, a brace list in bash, a home directory
                Arguments.of("{{params.v}} run", "LD_PRELOAD=/x.so", "'LD_PRELOAD=/x.so' run"),
                Arguments.of("echo {a,{{params.v}}}", "b,c", "echo {a,'b,c'}"),
                Arguments.of("ls ~{{params.v}}", "root", "ls ~'root'"),
                Arguments.of("cp --to={{params.v}} x", "/tmp/a b", "cp --to='/tmp/a b' x"),
                Arguments.of("echo {{params.v}}", 42, "echo 42"),
                Arguments.of("echo {{params.v}}", true, "echo true"),
                // double quotes: the four characters that still mean something there are escaped
                Arguments.of(
                        "echo \"hello {{params.v}}\"", "$(id) `id` \\ \"", "echo \"hello \\$(id) \\`id\\` \\\\ \\\"\""),
                Arguments.of("echo \"{{params.v}}\"", "a'b", "echo \"a'b\""),
                // single quotes: a quote in the value closes, writes a quoted quote, and reopens
                Arguments.of("echo 'x {{params.v}} y'", ";id;", "echo 'x ;id; y'"),
                Arguments.of("echo 'x {{params.v}} y'", "a'b", "echo 'x a'\\''b y'"),
                // a command substitution starts a fresh context, even inside double quotes
                Arguments.of("echo \"$(printf %s {{params.v}})\"", "a b", "echo \"$(printf %s 'a b')\""),
                Arguments.of("echo \"$(printf %s \"{{params.v}}\")\"", "$x", "echo \"$(printf %s \"\\$x\")\""),
                // a list standing as a whole word is one word per element
                Arguments.of("rm -- {{params.v}}", List.of("a b", "c"), "rm -- 'a b' c"),
                Arguments.of("rm -- {{params.v}}", List.of(), "rm -- "),
                // a here-document's text before the variable does not matter once it has ended
                Arguments.of("cat <<EOF\n$HOME\nEOF\necho {{params.v}}", "a b", "cat <<EOF\n$HOME\nEOF\necho 'a b'"),
                Arguments.of("echo a # comment\necho {{params.v}}", "a b", "echo a # comment\necho 'a b'"),
                Arguments.of("echo x#{{params.v}}", "a b", "echo x#'a b'"));
    }

    @ParameterizedTest(name = "{0} with {1}")
    @MethodSource("quoting")
    void values_become_one_literal_word_where_they_stand(String command, Object value, String expected) {
        assertThat(Templates.problems(command, Target.COMMAND)).isEmpty();
        assertThat(render(command, value)).isEqualTo(expected);
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("echo `echo {{params.v}}`", "inside backquotes"),
                Arguments.of("echo \"`echo {{params.v}}`\"", "inside backquotes"),
                Arguments.of("echo ${X:-{{params.v}}}", "inside ${…}"),
                Arguments.of("echo $(( {{params.v}} + 1 ))", "inside $((…))"),
                Arguments.of("echo $'{{params.v}}'", "inside $'…'"),
                Arguments.of("echo \\{{params.v}}", "right after a backslash"),
                Arguments.of("echo \"\\{{params.v}}\"", "right after a backslash"),
                Arguments.of("echo ${{params.v}}", "right after a '$'"),
                Arguments.of("# {{params.v}}\necho hi", "inside a comment"),
                Arguments.of("echo hi # {{params.v}}", "inside a comment"),
                Arguments.of("cat <<EOF\n{{params.v}}\nEOF", "inside a here-document"),
                Arguments.of("cat <<'EOF'\n{{params.v}}\nEOF", "inside a here-document"),
                Arguments.of("cat <<-EOF\n\t{{params.v}}\n\tEOF\n", "inside a here-document"),
                Arguments.of("cat <<{{params.v}}\nx\n", "delimiter"),
                Arguments.of("echo \"{{params.v}}", "leaves a double quote open"),
                Arguments.of("echo 'x' \"a $(echo) {{params.v}}", "leaves a double quote open"),
                Arguments.of("echo \"$(case x in x) echo ;; esac) {{params.v}}\"", "after a 'case' inside $( )"),
                Arguments.of("echo {{secret.db}}", "may not appear in a command"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void variables_where_no_quoting_makes_a_value_data_are_refused_at_save_and_at_render(
            String command, String reason) {
        assertThat(Templates.problems(command, Target.COMMAND))
                .anySatisfy(p -> assertThat(p).contains(reason));
        assertThatThrownBy(() -> render(command, "x"))
                .isInstanceOf(TemplateException.class)
                .hasMessageContaining(reason);
    }

    @Test
    void a_list_is_refused_where_it_is_not_a_whole_word() {
        assertThatThrownBy(() -> render("echo x{{params.v}}", List.of("a")))
                .isInstanceOf(TemplateException.class)
                .hasMessageContaining("renders only as whole shell words")
                .extracting(e -> ((TemplateException) e).parameter())
                .isEqualTo("v");
        assertThatThrownBy(() -> render("echo \"{{params.v}}\"", List.of("a")))
                .hasMessageContaining("renders only as whole shell words");
    }

    @Test
    void a_nul_character_is_refused_and_names_the_parameter() {
        assertThatThrownBy(() -> render("echo {{params.v}}", "a\0b"))
                .isInstanceOf(TemplateException.class)
                .hasMessageContaining("NUL")
                .extracting(e -> ((TemplateException) e).parameter())
                .isEqualTo("v");
    }

    @Test
    void axs_own_values_may_stand_where_outside_values_may_not() {
        assertThat(Templates.problems(
                        "cat <<EOF\nreport for {{date}} run {{attempt}}\nEOF\necho $(( {{attempt}} + 1 )) `echo {{taskName}}`",
                        Target.COMMAND))
                .isEmpty();
        assertThat(render("cat <<EOF\nfor {{date}}\nEOF", "x")).isEqualTo("cat <<EOF\nfor 2026-11-30\nEOF");
        assertThat(Templates.problems("cat <<EOF\n{{requestId}}\nEOF", Target.COMMAND))
                .hasSize(1);
        assertThat(Templates.problems("echo ${{attempt}}", Target.COMMAND))
                .singleElement()
                .asString()
                .contains("right after a '$'");
    }

    @Test
    void a_refusal_points_to_the_parameters_environment_variable() {
        assertThat(Templates.problems("cat <<EOF\n{{params.order-id}}\nEOF", Target.COMMAND))
                .singleElement()
                .asString()
                .contains("write \"$AX_PARAM_ORDER_ID\" there instead");
    }

    @Test
    void a_value_is_never_read_as_a_template_again() {
        assertThat(render("echo {{params.v}}", "{{date}}")).isEqualTo("echo '{{date}}'");
    }
}
