package dev.ax.domain.protocol;

/**
 * The server's answer to a report about a run. {@code accepted == false} means the reporter no
 * longer holds that attempt's lease (fencing): it must stop and drop what it has.
 */
public record ReportAnswer(boolean accepted, String reason) {
    public static final ReportAnswer OK = new ReportAnswer(true, null);

    public static ReportAnswer refused(String reason) {
        return new ReportAnswer(false, reason);
    }
}
