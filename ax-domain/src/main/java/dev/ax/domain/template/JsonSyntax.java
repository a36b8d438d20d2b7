package dev.ax.domain.template;

import dev.ax.domain.template.Escapes.Encoding;
import dev.ax.domain.template.Templates.Placeholder;
import dev.ax.domain.template.Templates.Slot;
import java.util.ArrayList;
import java.util.List;

/**
 * Follows a JSON body's string literals to learn whether each variable stands inside one (its value is
 * escaped as string content) or outside (its value is written as a whole JSON value).
 */
final class JsonSyntax {
    private JsonSyntax() {}

    static List<Slot> slots(String body, List<Placeholder> placeholders) {
        List<Slot> slots = new ArrayList<>(placeholders.size());
        boolean inString = false;
        int next = 0;
        int i = 0;
        while (i < body.length()) {
            if (next < placeholders.size() && placeholders.get(next).start() == i) {
                slots.add(new Slot(inString ? Encoding.JSON_STRING : Encoding.JSON_VALUE, !inString, null));
                i = placeholders.get(next++).end();
                continue;
            }
            char c = body.charAt(i);
            if (inString && c == '\\') {
                if (next < placeholders.size() && placeholders.get(next).start() == i + 1) {
                    slots.add(
                            Slot.refused(
                                    "right after a backslash in a JSON string, which would escape the value's first character"));
                    i = placeholders.get(next++).end();
                    continue;
                }
                i += 2;
                continue;
            }
            if (c == '"') {
                inString = !inString;
            }
            i++;
        }
        while (slots.size() < placeholders.size()) {
            slots.add(Slot.refused("after an escape at the end of the body"));
        }
        return slots;
    }
}
