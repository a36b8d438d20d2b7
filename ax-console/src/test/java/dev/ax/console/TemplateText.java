package dev.ax.console;

import gg.jte.ContentType;
import gg.jte.TemplateConfig;
import gg.jte.compiler.ContentProcessor;
import gg.jte.compiler.TemplateParser;
import gg.jte.compiler.TemplateParserVisitorAdapter;
import gg.jte.compiler.TemplateType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.select.NodeVisitor;

/**
 * Finds the words a jte template shows without the bundles. jte's own parser splits a template into its HTML and its
 * code; the HTML, with each piece of code replaced by a character that is no letter, is read by an HTML parser, and
 * every text node or person-facing attribute ({@link #TEXT_ATTRIBUTES}) that still holds a letter is such a word. A
 * string in the code that holds a letter and a space (a phrase, not a path, a key or a CSS class) is one too. Content
 * blocks ({@code @`…`}) inside code and template calls are read the same way.
 */
final class TemplateText {
    /** The attributes a person reads or hears. */
    static final Set<String> TEXT_ATTRIBUTES = Set.of(
            "title",
            "placeholder",
            "aria-label",
            "aria-description",
            "aria-roledescription",
            "aria-placeholder",
            "aria-valuetext",
            "alt",
            "label");
    /** Stands for what a template computes: a private-use character, no letter. */
    private static final String CODE = "\uE000";

    private static final Pattern LETTER = Pattern.compile("\\p{L}");
    private static final Pattern JAVA_STRING = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final TemplateConfig CONFIG = new TemplateConfig(ContentType.Html, "dev.ax.console.jte");

    private TemplateText() {}

    /** Each word found in {@code template} (named {@code name} in what is returned), with where it stands. */
    static List<String> words(String name, String template) {
        List<String> found = new ArrayList<>();
        StringBuilder html = new StringBuilder();
        parse(name, template, TemplateType.Template, html, found);
        Jsoup.parseBodyFragment(html.toString()).body().traverse(new NodeVisitor() {
            @Override
            public void head(Node node, int depth) {
                if (node instanceof TextNode t && hasLetter(t.getWholeText())) {
                    found.add(name + ": text \"" + shown(t.getWholeText()) + "\"");
                }
                if (node instanceof Element e) {
                    e.attributes().forEach(a -> {
                        if (TEXT_ATTRIBUTES.contains(a.getKey()) && hasLetter(a.getValue())) {
                            found.add(
                                    name + ": " + e.tagName() + " " + a.getKey() + "=\"" + shown(a.getValue()) + "\"");
                        }
                    });
                }
            }
        });
        return found;
    }

    private static void parse(String name, String code, TemplateType type, StringBuilder html, List<String> found) {
        TemplateParser parser = new TemplateParser(
                code,
                type,
                new TemplateParserVisitorAdapter() {
                    @Override
                    public void onTextPart(int depth, String textPart) {
                        html.append(textPart);
                    }

                    @Override
                    public void onCodePart(int depth, String codePart) {
                        code(codePart);
                    }

                    @Override
                    public void onHtmlTagBodyCodePart(int depth, String codePart, String tagName) {
                        code(codePart);
                    }

                    @Override
                    public void onHtmlTagAttributeCodePart(
                            int depth, String codePart, String tagName, String attributeName) {
                        code(codePart);
                    }

                    @Override
                    public void onUnsafeCodePart(int depth, String codePart) {
                        code(codePart);
                    }

                    @Override
                    public void onCodeStatement(int depth, String codePart) {
                        strings(name, codePart, html, found);
                    }

                    @Override
                    public void onConditionStart(int depth, String condition) {
                        strings(name, condition, html, found);
                    }

                    @Override
                    public void onConditionElse(int depth, String condition) {
                        strings(name, condition, html, found);
                    }

                    @Override
                    public void onForLoopStart(int depth, String codePart) {
                        strings(name, codePart, html, found);
                    }

                    @Override
                    public void onTemplateCall(int depth, String template, List<TemplateParser.TemplateParam> params) {
                        params.forEach(p -> strings(name, p.param(), html, found));
                    }

                    @Override
                    public void onError(String message) {
                        throw new IllegalStateException(name + ": " + message);
                    }

                    @Override
                    public void onError(String message, int line) {
                        throw new IllegalStateException(name + ":" + line + ": " + message);
                    }

                    private void code(String codePart) {
                        html.append(CODE);
                        strings(name, codePart, html, found);
                    }
                },
                CONFIG);
        parser.parse();
    }

    /** The phrases among a piece of code's strings, and the words of the content blocks in it. */
    private static void strings(String name, String code, StringBuilder html, List<String> found) {
        StringBuilder outside = new StringBuilder();
        new ContentProcessor(0, 0, code) {
            @Override
            protected void onContentBlock(int depth, String c, int lastWritten, int line, int start, int end) {
                outside.append(c, lastWritten + 1, start);
                html.append(' ');
                parse(name, c.substring(start, end), TemplateType.Content, html, found);
                html.append(' ');
            }

            @Override
            protected void onRemainingCode(String c, int start, int end) {
                outside.append(c, start, end);
            }
        }.process();
        Matcher m = JAVA_STRING.matcher(outside);
        while (m.find()) {
            String s = m.group(1);
            if (hasLetter(s) && s.strip().contains(" ")) {
                found.add(name + ": a phrase in code \"" + s + "\"");
            }
        }
    }

    /** Found text as it reads in the template: what the template computes as {@code ${…}}. */
    private static String shown(String text) {
        return text.replace(CODE, "${…}").strip().replaceAll("\\s+", " ");
    }

    private static boolean hasLetter(String s) {
        return LETTER.matcher(s).find();
    }
}
