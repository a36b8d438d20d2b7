package dev.ax.alerts;

import java.text.MessageFormat;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.MissingResourceException;
import java.util.Optional;
import java.util.ResourceBundle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The words of alerts in one language: the bundles {@code dev/ax/alerts/i18n/alerts*.properties} (UTF-8,
 * {@link MessageFormat} texts: a literal apostrophe is written twice). Every value is handed in as text already
 * formatted, so MessageFormat never formats a number or a date its own way (no "1,234" for run 1234).
 *
 * <p>What machines read stays English in every language: the kind and severity codes, the state names, the keys of
 * a webhook's {@code fields}, commands such as {@code ax run retry 42}.
 */
public final class AlertWords {
    public static final Locale EN = Locale.ENGLISH;
    public static final Locale ZH_CN = Locale.SIMPLIFIED_CHINESE;
    /** The languages alerts are written in. */
    public static final List<Locale> SUPPORTED = List.of(EN, ZH_CN);

    static final String BUNDLE = "dev.ax.alerts.i18n.alerts";
    private static final Pattern NOT_KEY = Pattern.compile("[^a-z0-9]+");
    private static final Map<Locale, AlertWords> BY_LOCALE = new ConcurrentHashMap<>();

    /** English: /healthz, the server log and the events of the run. */
    public static final AlertWords ENGLISH = of(EN);

    private final Locale locale;
    private final ResourceBundle bundle;

    private AlertWords(Locale locale) {
        this.locale = locale;
        // No fallback to the JVM's default locale: the base bundle is English, whatever the machine says.
        this.bundle = ResourceBundle.getBundle(
                BUNDLE, locale, ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES));
    }

    /** The words of a supported language; any other is refused (the configuration checks its languages first). */
    public static AlertWords of(Locale locale) {
        if (!SUPPORTED.contains(locale)) {
            throw new IllegalArgumentException("alerts are written in " + tags() + ", not " + locale.toLanguageTag());
        }
        return BY_LOCALE.computeIfAbsent(locale, AlertWords::new);
    }

    /** The supported language a tag names ("zh-CN", "zh_cn", "EN"). */
    public static Optional<Locale> parse(String tag) {
        if (tag == null) {
            return Optional.empty();
        }
        String t = tag.strip().replace('_', '-');
        return SUPPORTED.stream()
                .filter(l -> l.toLanguageTag().equalsIgnoreCase(t))
                .findFirst();
    }

    /** "en, zh-CN". */
    public static String tags() {
        return String.join(", ", SUPPORTED.stream().map(Locale::toLanguageTag).toList());
    }

    public Locale locale() {
        return locale;
    }

    /** A text with its values, each given as text. */
    public String text(String key, Object... values) {
        String pattern = bundle.getString(key);
        if (values.length == 0) {
            return new MessageFormat(pattern, locale).format(new Object[0]);
        }
        Object[] texts = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            texts[i] = String.valueOf(values[i]);
        }
        return new MessageFormat(pattern, locale).format(texts);
    }

    /** One of two texts by a count: {@code key.one} for 1, {@code key.many} otherwise; the count is value {0}. */
    public String count(String key, long n, Object... more) {
        Object[] values = new Object[more.length + 1];
        values[0] = n;
        System.arraycopy(more, 0, values, 1, more.length);
        return text(key + (n == 1 ? ".one" : ".many"), values);
    }

    /**
     * The label of an alert's field. Fields are kept under their English labels (a webhook's {@code fields} keys, which
     * machines read); a person reads them in their language: "Exit code" is {@code field.exit_code}.
     */
    public String label(String english) {
        try {
            return bundle.getString(labelKey(english));
        } catch (MissingResourceException e) {
            return english;
        }
    }

    static String labelKey(String english) {
        String k = NOT_KEY.matcher(english.toLowerCase(Locale.ROOT)).replaceAll("_");
        return "field." + k.replaceAll("^_+|_+$", "");
    }

    /** "45s", "3m 5s", "2h", "2h 5m" in English; "45 秒", "3 分 5 秒", "2 小时" … in Chinese. */
    public String human(Duration d) {
        long s = d.toSeconds();
        if (s < 120) {
            return text("duration.s", s);
        }
        if (s < 7200) {
            return s % 60 == 0 ? text("duration.m", s / 60) : text("duration.ms", s / 60, s % 60);
        }
        long m = s % 3600 / 60;
        return m == 0 ? text("duration.h", s / 3600) : text("duration.hm", s / 3600, m);
    }
}
