package dev.ax.domain.access;

import dev.ax.domain.task.JsonReader;
import dev.ax.domain.task.ValidationException;
import java.util.Map;
import java.util.Set;

/** A new team, as {@code POST /api/teams} asks for it: {@code {"name": "data", "description": "the data platform team"}}. */
public record TeamRequest(String name, String description) {
    public static final int MAX_DESCRIPTION = 500;
    private static final Set<String> FIELDS = Set.of("name", "description");

    public static TeamRequest parse(Object json) {
        JsonReader in = new JsonReader();
        Map<String, Object> root = json == null ? null : in.object(json, "");
        if (root == null) {
            throw in.hasErrors()
                    ? new ValidationException(in.errors())
                    : new ValidationException("", "send {\"name\": …} as a JSON object");
        }
        in.rejectUnknown(root, "", FIELDS);
        String name = Names.team(in, in.required(root, "", "name"), "name");
        String description = in.string(root.get("description"), "description");
        if (description != null && description.length() > MAX_DESCRIPTION) {
            in.error("description", "at most " + MAX_DESCRIPTION + " characters");
        }
        if (in.hasErrors()) {
            throw new ValidationException(in.errors());
        }
        return new TeamRequest(name, description);
    }
}
