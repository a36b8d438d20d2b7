package dev.ax.domain.task;

import static dev.ax.domain.task.JsonReader.path;

import dev.ax.domain.access.Approver;
import dev.ax.domain.access.Names;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code policy.approval}. */
final class ApprovalCodec {
    static final String FIELD = "policy.approval";
    static final long MAX_TIMEOUT_SECONDS = 30L * 86_400;
    private static final Set<String> FIELDS = Set.of("required", "approvers", "timeoutSeconds", "fourEyes", "preview");

    private ApprovalCodec() {}

    static Approval read(JsonReader in, Object value) {
        if (value == null) {
            return null;
        }
        Map<String, Object> m = in.object(value, FIELD);
        if (m == null) {
            return null;
        }
        in.rejectUnknown(m, FIELD, FIELDS);
        Boolean required = in.bool(m.get("required"), path(FIELD, "required"));
        List<String> approvers = new ArrayList<>();
        List<Object> raw = in.array(m.get("approvers"), path(FIELD, "approvers"));
        if (raw != null) {
            for (int i = 0; i < raw.size(); i++) {
                String field = path(path(FIELD, "approvers"), i);
                String entry = in.string(raw.get(i), field);
                if (entry != null && entry.startsWith("team:")) {
                    if (Approver.parse(entry).isEmpty()) {
                        in.error(
                                field,
                                "'" + entry + "' must be team:<team>/<role>, the role viewer, operator or admin");
                    } else {
                        approvers.add(entry);
                    }
                } else if (Names.person(in, entry, field) != null) {
                    approvers.add(entry);
                }
            }
        }
        Long timeout = in.integer(m.get("timeoutSeconds"), path(FIELD, "timeoutSeconds"), 1, MAX_TIMEOUT_SECONDS);
        Boolean fourEyes = in.bool(m.get("fourEyes"), path(FIELD, "fourEyes"));
        Action preview =
                m.get("preview") == null ? null : ActionCodec.read(in, m.get("preview"), path(FIELD, "preview"));
        // "required": false keeps the settings written down but switches the gate off.
        return required != null && !required
                ? null
                : new Approval(approvers, timeout, fourEyes != null && fourEyes, preview);
    }

    static Object toJson(Approval a) {
        if (a == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("required", true);
        m.put("approvers", new ArrayList<>(a.approvers()));
        m.put("timeoutSeconds", a.timeoutSeconds());
        m.put("fourEyes", a.fourEyes());
        m.put("preview", a.preview() == null ? null : ActionCodec.toJson(a.preview()));
        return m;
    }
}
