package dev.ax.console;

import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import io.javalin.http.Context;
import java.util.Map;

/**
 * The jte templates of {@code src/main/jte}, compiled to Java classes at build time by the
 * jte-maven-plugin, so no compiler or template file is needed at run time.
 */
final class Templates {
    static final String PACKAGE = "dev.ax.console.jte";
    private final TemplateEngine engine = TemplateEngine.createPrecompiled(null, ContentType.Html, null, PACKAGE);

    /** Renders {@code name} with the page frame data and the page's model ({@code m}) into a string. */
    String render(String name, Page page, Object model) {
        StringOutput out = new StringOutput();
        engine.render(name, model == null ? Map.of("page", page) : Map.of("page", page, "m", model), out);
        return out.toString();
    }

    /** Renders a fragment that takes only its model (no page frame, no words). */
    String fragment(String name, Object model) {
        StringOutput out = new StringOutput();
        engine.render(name, Map.of("m", model), out);
        return out.toString();
    }

    /** Renders a page in the words of the person who asked for it ({@link I18n#of}). */
    void page(Context ctx, String name, Page page, Object model) {
        String html = I18n.rendering(I18n.of(ctx), () -> render(name, page, model));
        ctx.contentType("text/html; charset=utf-8")
                .header("Content-Language", I18n.of(ctx).tag())
                .result(html);
    }
}
