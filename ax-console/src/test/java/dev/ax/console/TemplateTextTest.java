package dev.ax.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every word of every page comes from the message bundles: a template that spells one out fails here. */
class TemplateTextTest {
    static final Path TEMPLATES = Path.of("src/main/jte");

    @Test
    void no_template_shows_a_word_that_bypasses_the_message_bundles() throws IOException {
        List<Path> files;
        try (Stream<Path> all = Files.walk(TEMPLATES)) {
            files = all.filter(p -> p.toString().endsWith(".jte")).sorted().toList();
        }
        assertThat(files).hasSizeGreaterThan(20);
        List<String> words = files.stream()
                .flatMap(f -> TemplateText.words(TEMPLATES.relativize(f).toString(), read(f)).stream())
                .toList();
        assertThat(words).as("words outside the bundles").isEmpty();
    }

    @Test
    void the_check_finds_english_in_text_in_the_attributes_people_read_in_calls_and_in_content_blocks() {
        String template = """
                @import static dev.ax.console.I18n.tr
                @param String a
                <h1>${tr("x")}</h1>
                <p>Hello ${a}</p>
                <button title="Run it now" class="primary" data-x="raw">${tr("y")}</button>
                <input placeholder="one value per line" aria-label="${tr("z")}">
                @template.tag.runs(rows = java.util.List.of(), empty = null, back = "/tasks/" + a)
                @template.layout(content = @`<p>Nothing to see</p>`)
                !{var link = @`<a href="/x">${a}</a> or more`;}
                ${a == null ? "No runs yet." : a}
                """;
        assertThat(TemplateText.words("t.jte", template))
                .containsExactlyInAnyOrder(
                        "t.jte: text \"Hello ${…}\"",
                        "t.jte: button title=\"Run it now\"",
                        "t.jte: input placeholder=\"one value per line\"",
                        "t.jte: text \"Nothing to see\"",
                        "t.jte: text \"or more ${…}\"",
                        "t.jte: a phrase in code \"No runs yet.\"");
    }

    private static String read(Path f) {
        try {
            return Files.readString(f, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
