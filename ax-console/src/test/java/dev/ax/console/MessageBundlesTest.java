package dev.ax.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The two bundles say the same things: the same keys, each with the same values to fill in, none of them empty. */
class MessageBundlesTest {
    static final Pattern PLACEHOLDER = Pattern.compile("\\{(\\d+)}");
    /** A key named in code: tr("…"), text("…"), flash(…, "…"), with the key as a string literal. */
    static final Pattern KEY_IN_CODE = Pattern.compile(
            "(?:\\btr|\\.text|Session\\.flash\\(ctx, (?:true|false),|done\\(ctx, \\w+,)\\(?\\s*\"([a-z][\\w.-]*)\"");

    static Properties bundle(String suffix) {
        Properties p = new Properties();
        String path = "/" + I18n.BUNDLE.replace('.', '/') + suffix + ".properties";
        try (InputStream in = MessageBundlesTest.class.getResourceAsStream(path)) {
            assertThat(in).as(path).isNotNull();
            p.load(new InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    static final Properties EN = bundle("");
    static final Properties ZH = bundle("_zh_CN");

    @Test
    void both_bundles_have_the_same_keys() {
        assertThat(new TreeSet<>(ZH.stringPropertyNames())).isEqualTo(new TreeSet<>(EN.stringPropertyNames()));
        assertThat(EN.stringPropertyNames()).hasSizeGreaterThan(500);
    }

    @Test
    void each_text_has_the_same_values_to_fill_in_in_both_languages_and_none_is_empty() {
        List<String> wrong = new ArrayList<>();
        for (String key : new TreeSet<>(EN.stringPropertyNames())) {
            String en = EN.getProperty(key);
            String zh = ZH.getProperty(key, "");
            if (en.isBlank() || zh.isBlank()) {
                wrong.add(key + ": empty");
            } else if (!placeholders(en).equals(placeholders(zh))) {
                wrong.add(key + ": " + placeholders(en) + " in English, " + placeholders(zh) + " in Chinese");
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void the_chinese_bundle_is_chinese_where_english_has_words() {
        // A key whose English has words but whose Chinese has no Chinese character was not translated (codes and
        // names, the same in both, are listed).
        Set<String> same = Set.of(
                "layout.title",
                "layout.brand",
                "language.en",
                "task.params_placeholder",
                "version",
                "refused.team_separator",
                "workflows.trigger_cron");
        List<String> untranslated = EN.stringPropertyNames().stream()
                .filter(k -> !same.contains(k) && !k.startsWith("state.") && !k.startsWith("cause."))
                .filter(k -> EN.getProperty(k).matches("(?s).*[A-Za-z]{3,}.*"))
                .filter(k -> !ZH.getProperty(k, "").matches("(?s).*\\p{IsHan}.*"))
                .sorted()
                .toList();
        assertThat(untranslated).isEmpty();
    }

    @Test
    void every_state_cause_action_and_language_the_console_names_has_its_words() {
        Arrays.stream(RunState.values()).forEach(s -> assertThat(EN).containsKey("state." + s.name()));
        Arrays.stream(Cause.values()).forEach(c -> assertThat(EN).containsKey("cause." + c.wireName()));
        Arrays.stream(Permissions.Action.values()).forEach(a -> assertThat(EN).containsKey("action." + a.name()));
        I18n.SUPPORTED.forEach(l -> assertThat(EN).containsKey("language." + l.toLanguageTag()));
        assertThat(ZH.getProperty("state.FAILED")).isEqualTo("失败 {0}");
    }

    @Test
    void every_key_a_template_or_a_handler_names_is_in_the_bundles() throws IOException {
        List<String> missing = new ArrayList<>();
        for (Path root : List.of(Path.of("src/main/jte"), Path.of("src/main/java"))) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    Matcher m = KEY_IN_CODE.matcher(Files.readString(f));
                    while (m.find()) {
                        // A key ending in '.' is the start of one made in code ("state." + name): the checks above
                        // cover those.
                        if (!m.group(1).endsWith(".") && !EN.containsKey(m.group(1))) {
                            missing.add(root.relativize(f) + ": " + m.group(1));
                        }
                    }
                }
            }
        }
        assertThat(missing).isEmpty();
    }

    static Set<String> placeholders(String text) {
        Set<String> out = new TreeSet<>();
        Matcher m = PLACEHOLDER.matcher(text);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }
}
