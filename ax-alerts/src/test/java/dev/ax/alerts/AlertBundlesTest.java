package dev.ax.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The alerts' two bundles say the same things, and every text is a MessageFormat that keeps its apostrophes. */
class AlertBundlesTest {
    static final Pattern PLACEHOLDER = Pattern.compile("\\{(\\d+)}");

    static Properties bundle(String suffix) {
        Properties p = new Properties();
        String path = "/" + AlertWords.BUNDLE.replace('.', '/') + suffix + ".properties";
        try (InputStream in = AlertBundlesTest.class.getResourceAsStream(path)) {
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
    void both_languages_have_the_same_keys_and_the_same_values_to_fill_in() {
        assertThat(new TreeSet<>(ZH.stringPropertyNames())).isEqualTo(new TreeSet<>(EN.stringPropertyNames()));
        List<String> wrong = new ArrayList<>();
        for (String key : new TreeSet<>(EN.stringPropertyNames())) {
            if (!placeholders(EN.getProperty(key)).equals(placeholders(ZH.getProperty(key)))) {
                wrong.add(key);
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void no_apostrophe_is_lost_to_message_format() {
        // MessageFormat reads a lone ' as the start of a quote: it must be written twice to be shown.
        List<String> lost = new ArrayList<>();
        for (Properties p : List.of(EN, ZH)) {
            for (String key : p.stringPropertyNames()) {
                String text = p.getProperty(key);
                String shown = new MessageFormat(text).format(new Object[] {"a", "b", "c", "d"});
                long apostrophes = text.chars().filter(ch -> ch == '\'').count();
                if (apostrophes % 2 != 0
                        || shown.chars().filter(ch -> ch == '\'').count() != apostrophes / 2) {
                    lost.add(key);
                }
            }
        }
        assertThat(lost).isEmpty();
    }

    @Test
    void every_field_label_the_code_puts_in_an_alert_has_its_words() throws IOException {
        // Fields are put as f.put("Exit code", …): every such label of the alerts' code is found and looked up.
        Pattern put = Pattern.compile("\\bf\\.put\\(\\s*\"([A-Z][^\"]*)\"");
        Set<String> labels = new TreeSet<>();
        try (Stream<Path> files = Files.list(Path.of("src/main/java/dev/ax/alerts"))) {
            for (Path f : files.toList()) {
                Matcher m = put.matcher(Files.readString(f));
                while (m.find()) {
                    labels.add(m.group(1));
                }
            }
        }
        assertThat(labels).contains("Task", "Exit code", "Usual (p95 of recent successes)", "Check", "Minute");
        AlertWords zh = AlertWords.of(AlertWords.ZH_CN);
        labels.forEach(l -> {
            assertThat(EN.getProperty(AlertWords.labelKey(l))).as(l).isEqualTo(l);
            assertThat(zh.label(l)).as(l).matches(".*\\p{IsHan}.*");
        });
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
