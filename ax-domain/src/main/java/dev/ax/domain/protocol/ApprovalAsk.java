package dev.ax.domain.protocol;

/** A running handler asks a person to confirm before it goes on (SDK {@code ctx.awaitApproval}). */
public record ApprovalAsk(String executorId, RunRef run, String summary) {}
