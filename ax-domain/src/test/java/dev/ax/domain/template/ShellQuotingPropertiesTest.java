package dev.ax.domain.template;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Random values, real shells: whatever a parameter holds, the command a template renders to passes it
 * to the program as exactly the word the template meant, in dash (Debian's sh) and in bash (sh on other
 * systems), and runs nothing else. A value that escaped its quoting would split a word, add one, or run
 * a command that prints where the program's words go.
 */
class ShellQuotingPropertiesTest {
    /** Shapes a task author writes, each with the words it must pass for a value v. */
    private record Shape(String template, Function<String, List<String>> words) {}

    private static final String PRINT = "printf '%s\\0' ";

    private static final List<Shape> SHAPES = List.of(
            new Shape(PRINT + "{{params.v}}", List::of),
            new Shape(PRINT + "a{{params.v}}b", v -> List.of("a" + v + "b")),
            new Shape(PRINT + "\"x {{params.v}} y\"", v -> List.of("x " + v + " y")),
            new Shape(PRINT + "'x {{params.v}} y'", v -> List.of("x " + v + " y")),
            new Shape(PRINT + "{{params.v}} \"{{params.v}}\" '{{params.v}}'", v -> List.of(v, v, v)),
            new Shape("X={{params.v}}; " + PRINT + "\"$X\"", List::of),
            new Shape("for a in {{params.v}}; do " + PRINT + "\"$a\"; done", List::of),
            new Shape("case {{params.v}} in *) " + PRINT + "{{params.v}};; esac", List::of),
            // command substitution drops trailing newlines: that is the shell, not the value escaping
            new Shape(PRINT + "\"$(printf '%s' {{params.v}})\"", v -> List.of(v.replaceAll("\n+$", ""))),
            new Shape(
                    PRINT + "\"a$(printf '%s' \"{{params.v}}\")b\"",
                    v -> List.of("a" + v.replaceAll("\n+$", "") + "b")),
            new Shape("cat >/dev/null <<'EOF'\nignored {{date}}\nEOF\n" + PRINT + "{{params.v}} >&2", List::of));

    @Provide
    Arbitrary<String> hostile() {
        Arbitrary<String> meta = Arbitraries.strings()
                .withChars("'\"`$\\;|&<>(){}[]*?~#!=,%^ \t\n\r-_./:@+")
                .withCharRange('a', 'f')
                .withCharRange('\u00e0', '\u00ff')
                .ofMaxLength(24);
        Arbitrary<String> attacks = Arbitraries.of(
                "x; id",
                "$(id)",
                "`id`",
                "'; id; '",
                "\"; id; \"",
                "a\nid",
                "--help",
                "LD_PRELOAD=x",
                "${IFS}id",
                "$((1+1))",
                "\\",
                "'",
                "\"",
                "",
                " ",
                "*",
                "~",
                "{a,b}",
                "EOF\nid\nEOF");
        return Arbitraries.oneOf(
                meta, attacks, Arbitraries.strings().ofMaxLength(12).filter(s -> s.indexOf('\0') < 0));
    }

    @Property(tries = 40)
    void dash_receives_exactly_the_intended_words(@ForAll("hostile") String value) throws Exception {
        check("/bin/dash", value);
    }

    @Property(tries = 40)
    void bash_receives_exactly_the_intended_words(@ForAll("hostile") String value) throws Exception {
        check("/bin/bash", value);
    }

    @Property(tries = 25)
    void a_list_becomes_one_word_per_element(@ForAll("lists") List<String> values) throws Exception {
        String command =
                Templates.render("for a in {{params.v}}; do " + PRINT + "\"$a\"; done", Target.COMMAND, ctx(values));
        for (String shell : List.of("/bin/dash", "/bin/bash")) {
            assertThat(run(shell, command)).as(shell + ": " + command).isEqualTo(values);
        }
    }

    /**
     * Random commands put together from shell syntax, variables anywhere: every one AX accepts runs no
     * value as code, whatever the value. The values try to create a file; none may exist afterwards.
     */
    @Property(tries = 80)
    void no_accepted_command_runs_a_value(@ForAll("commands") String template) throws Exception {
        boolean accepted = Templates.problems(template, Target.COMMAND).isEmpty();
        Statistics.collect(accepted ? "accepted" : "refused at save");
        if (!accepted) {
            return; // it never runs
        }
        for (String attack : ATTACKS) {
            String command = Templates.render(template, Target.COMMAND, ctx(attack));
            for (String shell : List.of("/bin/dash", "/bin/bash")) {
                assertThat(ranCode(shell, command))
                        .as(shell + " ran a value as code in: " + command)
                        .isFalse();
            }
        }
    }

    /** Each escapes one kind of context: a bare word, quotes of either kind, a comment or here-document line, a brace, a paren. */
    private static final List<String> ATTACKS = List.of(
            ";touch pwned;",
            "'$(touch pwned)'",
            "\"`touch pwned`\"",
            "EOF\ntouch pwned\nE\n",
            "\\';touch pwned;'",
            "${x:-$(touch pwned)}",
            ")$(touch pwned)(",
            "a}$((`touch pwned`)){");

    @Provide
    Arbitrary<String> commands() {
        return Arbitraries.of(
                        "echo ",
                        "printf '%s' ",
                        "\"",
                        "'",
                        "$(",
                        ")",
                        "(",
                        "`",
                        "${X:-",
                        "}",
                        "#",
                        "\n",
                        "<<EOF\n",
                        "<<'EOF'\n",
                        "EOF\n",
                        "\\",
                        " ",
                        ";",
                        "|",
                        "&&",
                        "x",
                        "=",
                        "{{params.v}}",
                        "{{params.v}}",
                        "{{params.v}}",
                        "{{date}}",
                        "$",
                        "$((",
                        "))",
                        "case x in x) ",
                        ";; esac",
                        "<<-E\n",
                        "\tE\n",
                        "$'",
                        "~",
                        "{a,",
                        "X=")
                .list()
                .ofMinSize(1)
                .ofMaxSize(14)
                .map(parts -> String.join("", parts));
    }

    /** Runs a command that may be broken shell; true if it created the file a value asks for. */
    private static boolean ranCode(String shell, String command) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("ax-quoting");
        try {
            Process p = new ProcessBuilder(shell, "-s")
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            try (var stdin = p.getOutputStream()) {
                stdin.write(command.getBytes(StandardCharsets.UTF_8));
            }
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor();
            }
            return Files.exists(dir.resolve("pwned"));
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    @Provide
    Arbitrary<List<String>> lists() {
        return hostile().list().ofMaxSize(4);
    }

    private static void check(String shell, String value) throws Exception {
        for (Shape shape : SHAPES) {
            String command = Templates.render(shape.template(), Target.COMMAND, ctx(value));
            List<String> expected = shape.words().apply(value);
            assertThat(run(shell, command)).as(shell + " ran: " + command).isEqualTo(expected);
        }
    }

    private static TemplateContext ctx(Object value) {
        return new TemplateContext(
                "t", Instant.parse("2026-11-30T02:00:00Z"), ZoneId.of("UTC"), Map.of("v", value), 1, 1, null);
    }

    /** The NUL-separated words the command printed (on stdout or stderr), after it exited 0. */
    private static List<String> run(String shell, String command) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("ax-quoting");
        try {
            // The script on standard input, as UTF-8 bytes: arguments would go through the JVM's locale encoding.
            Process p = new ProcessBuilder(shell, "-s")
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
            try (var stdin = p.getOutputStream()) {
                stdin.write(command.getBytes(StandardCharsets.UTF_8));
            }
            byte[] out = readAll(p.getInputStream());
            assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("exited").isTrue();
            assertThat(p.exitValue())
                    .as("exit code of " + command + "; output: " + new String(out, StandardCharsets.UTF_8))
                    .isZero();
            try (var files = Files.list(dir)) {
                assertThat(files.toList()).as("files the command created").isEmpty();
            }
            String text = new String(out, StandardCharsets.UTF_8);
            List<String> words = new ArrayList<>(Arrays.asList(text.split("\0", -1)));
            words.removeLast(); // after the last NUL
            return words;
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toByteArray();
    }
}
