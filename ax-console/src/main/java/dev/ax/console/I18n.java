package dev.ax.console;

import dev.ax.domain.run.RunState;
import gg.jte.Content;
import gg.jte.output.StringOutput;
import gg.jte.support.LocalizationSupport;
import io.javalin.http.Context;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ResourceBundle;
import java.util.function.Supplier;

/**
 * One person's words and clock: the language they chose (cookie {@value #LANG_COOKIE}, set by the switch in the
 * header), else the first of their browser's {@code Accept-Language} that AX speaks, else the server's
 * {@code --locale}; and their time zone (cookie {@value #ZONE_COOKIE}, which console.js sets from the browser), else
 * the server's.
 *
 * <p>Every word the console shows comes from the bundles {@code dev/ax/console/i18n/messages*.properties} (UTF-8),
 * through jte's {@link LocalizationSupport}: a bundle's text is the console's own and goes out as HTML, while every
 * value put into its {@code {0}}, {@code {1}} is escaped like any other output. The substitution is jte's, not
 * {@code MessageFormat}'s: an apostrophe is just an apostrophe. Templates call {@link #tr}; handlers call
 * {@link #text} for what they compose (flash messages, titles), which a template escapes when it shows it.
 */
public final class I18n implements LocalizationSupport {
    public static final Locale EN = Locale.ENGLISH;
    public static final Locale ZH_CN = Locale.SIMPLIFIED_CHINESE;
    /** The languages the console speaks, in the order the switch offers them. */
    public static final List<Locale> SUPPORTED = List.of(EN, ZH_CN);

    static final String BUNDLE = "dev.ax.console.i18n.messages";
    static final String LANG_COOKIE = "ax_lang";
    static final String ZONE_COOKIE = "ax_tz";
    private static final String ATTRIBUTE = "ax.console.i18n";
    private static final ThreadLocal<I18n> RENDERING = new ThreadLocal<>();
    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
    private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm");
    /** "GMT+8", "GMT+5:30", "GMT": the offset that applied at that instant, short and unambiguous in both languages. */
    private static final DateTimeFormatter OFFSET = DateTimeFormatter.ofPattern("O", Locale.ROOT);

    private final Locale locale;
    private final ResourceBundle bundle;
    private final ZoneId zone;
    private final String here;

    I18n(Locale locale, ZoneId zone, String here) {
        if (!SUPPORTED.contains(locale)) {
            throw new IllegalArgumentException("the console speaks " + tags() + ", not " + locale.toLanguageTag());
        }
        this.locale = locale;
        // No fallback to the JVM's default locale: English is the base bundle, whatever the machine is set to.
        this.bundle = ResourceBundle.getBundle(
                BUNDLE, locale, ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES));
        this.zone = zone;
        this.here = here;
    }

    /** English in the server's zone: what the audit log records of a message, whoever was told it in which language. */
    static I18n english() {
        return new I18n(EN, ZoneId.systemDefault(), "/");
    }

    /** "en, zh-CN". */
    public static String tags() {
        return String.join(", ", SUPPORTED.stream().map(Locale::toLanguageTag).toList());
    }

    /** The supported language a tag names ("zh-CN", "zh_cn", "EN"), if AX speaks it. */
    public static Optional<Locale> supported(String tag) {
        if (tag == null) {
            return Optional.empty();
        }
        String t = tag.strip().replace('_', '-');
        return SUPPORTED.stream()
                .filter(l -> l.toLanguageTag().equalsIgnoreCase(t))
                .findFirst();
    }

    // ---- per request ----------------------------------------------------------------------------

    /** Works out the person's language and zone once, at the start of a request. */
    static void attach(Context ctx, Locale serverDefault) {
        Locale lang = supported(ctx.cookie(LANG_COOKIE))
                .or(() -> accepted(ctx.header("Accept-Language")))
                .orElse(serverDefault);
        String query = ctx.queryString();
        ctx.attribute(
                ATTRIBUTE,
                new I18n(lang, zone(ctx.cookie(ZONE_COOKIE)), ctx.path() + (query == null ? "" : "?" + query)));
    }

    /** The person's words, as {@link #attach} found them (English in the server's zone for a request it did not see). */
    static I18n of(Context ctx) {
        I18n i = ctx.attribute(ATTRIBUTE);
        return i != null ? i : english();
    }

    /**
     * The first language of an {@code Accept-Language} header that the console speaks, by its primary language
     * ("zh-TW" and "zh" read Simplified Chinese rather than English); none for "*", a missing or broken header.
     */
    static Optional<Locale> accepted(String header) {
        if (header == null || header.isBlank()) {
            return Optional.empty();
        }
        try {
            for (Locale.LanguageRange r : Locale.LanguageRange.parse(header)) {
                String primary = r.getRange().split("-", 2)[0];
                Optional<Locale> match = SUPPORTED.stream()
                        .filter(l -> l.getLanguage().equals(primary))
                        .findFirst();
                if (match.isPresent()) {
                    return match;
                }
            }
        } catch (IllegalArgumentException e) {
            // a header no browser sends: the server's language
        }
        return Optional.empty();
    }

    /** The zone a browser named, if it is one this JVM knows; else the server's. */
    static ZoneId zone(String id) {
        if (id != null && !id.isBlank()) {
            try {
                return ZoneId.of(URLDecoder.decode(id, StandardCharsets.UTF_8).strip());
            } catch (DateTimeException | IllegalArgumentException e) {
                // a zone this JVM does not know, or a forged cookie: the server's zone
            }
        }
        return ZoneId.systemDefault();
    }

    // ---- templates ------------------------------------------------------------------------------

    /** Renders with these words: templates reach them through {@link #tr}, as jte's documentation suggests. */
    static <T> T rendering(I18n words, Supplier<T> render) {
        I18n before = RENDERING.get();
        RENDERING.set(words);
        try {
            return render.get();
        } finally {
            if (before == null) {
                RENDERING.remove();
            } else {
                RENDERING.set(before);
            }
        }
    }

    /** The words of the page being rendered. */
    public static I18n current() {
        I18n i = RENDERING.get();
        if (i == null) {
            throw new IllegalStateException("a template was rendered outside Templates, which says in which language");
        }
        return i;
    }

    /** A text of the page being rendered. */
    public static Content tr(String key) {
        return current().localize(key);
    }

    /** A text with values: each value is escaped as it goes in; a {@link Content} value is inserted as it renders. */
    public static Content tr(String key, Object... values) {
        return current().localize(key, values);
    }

    @Override
    public String lookup(String key) {
        // A missing key fails the page rather than leaving a hole in it: every page is rendered by a test.
        return bundle.getString(key);
    }

    // ---- values ---------------------------------------------------------------------------------

    /** A text as plain characters, for a handler to hand to a template (which escapes it) or to a flash message. */
    public String text(String key, Object... values) {
        StringOutput out = new StringOutput();
        localize(key, values).writeTo(out);
        return out.toString();
    }

    /** The language's tag, for {@code <html lang>}: "en" or "zh-CN". */
    public String tag() {
        return locale.toLanguageTag();
    }

    public Locale locale() {
        return locale;
    }

    public ZoneId zone() {
        return zone;
    }

    /** The page asked for, path and query: where the language switch comes back to. */
    public String here() {
        return here;
    }

    /** A state as a person reads it, its code kept: "FAILED" in English, "失败 FAILED" in Chinese. */
    public Content state(RunState s) {
        return state(s.name());
    }

    /** The same for a state's name (a shard's, a workflow run's or node's; unknown names show as they are). */
    public Content state(String name) {
        String key = "state." + name;
        return bundle.containsKey(key) ? localize(key, name) : localize("state.other", name);
    }

    /** Why a run exists as a person reads it, its wire name kept ("manual"; "手动 manual"); unknown ones as they are. */
    public Content cause(String wire) {
        String key = "cause." + wire;
        return bundle.containsKey(key) ? localize(key, wire) : localize("state.other", wire);
    }

    /** "2026-12-01 10:00:00 GMT+8": the time in the person's zone, the zone's offset shown. */
    public String time(Instant t) {
        var local = t.atZone(zone);
        return LOCAL.format(local) + " " + OFFSET.format(local);
    }

    /** "2026-12-01 10:00 GMT+8": a time to the minute (an hour of the dashboard's chart). */
    public String minute(Instant t) {
        var local = t.atZone(zone);
        return MINUTE.format(local) + " " + OFFSET.format(local);
    }

    /** "1.2 s", "3 min 4 s", "2 h 5 min", "1 d 3 h" in the person's words; null for none. */
    public String duration(Duration d) {
        if (d == null) {
            return null;
        }
        long ms = Math.abs(d.toMillis());
        String sign = d.isNegative() ? "-" : "";
        if (ms < 1000) {
            return sign + text("duration.ms", ms);
        }
        if (ms < 60_000) {
            return sign + text("duration.s", String.format(Locale.ROOT, "%.1f", ms / 1000.0));
        }
        long s = ms / 1000;
        if (s < 3600) {
            return sign + text("duration.min", s / 60, s % 60);
        }
        if (s < 86_400) {
            return sign + text("duration.h", s / 3600, s % 3600 / 60);
        }
        return sign + text("duration.d", s / 86_400, s % 86_400 / 3600);
    }

    public String between(Instant from, Instant to) {
        return from == null || to == null ? null : duration(Duration.between(from, to));
    }
}
