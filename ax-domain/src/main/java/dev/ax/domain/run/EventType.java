package dev.ax.domain.run;

/**
 * Everything that the event log records. Run events describe one run; task events
 * (no run) describe the recipe and the slots that produced no run.
 */
public enum EventType {
    // run life
    CREATED,
    CLAIMED,
    STARTED,
    SUCCEEDED,
    FAILED,
    RETRY_SCHEDULED,
    RETRY_READY,
    TIMED_OUT,
    EXECUTOR_LOST,
    CANCELED,
    TERMINATED,
    SKIPPED,
    REPORT_REFUSED,
    LOG_TRUNCATED,
    // concurrency (policy.maxConcurrency / policy.overflow)
    OVERLAP_SKIPPED,
    QUEUE_DROPPED,
    UNBLOCKED,
    REPLACED,
    // idempotency (policy.idempotencyKey): a run whose key is already done is not run again
    DEDUPLICATED,
    // after a final failure (policy.onFailedActions)
    FOLLOW_UP_DONE,
    FOLLOW_UP_FAILED,
    // approval gates (policy.approval)
    APPROVAL_REQUESTED,
    APPROVED,
    REJECTED,
    APPROVAL_EXPIRED,
    // task dependencies (dependsOn): released, or the wait deadline passed (an alert)
    DEPENDENCY_MET,
    DEPENDENCY_DEADLINE,
    // sharded runs (policy.sharding): the fan-out, then each shard's story; data.shard is the shard index
    SHARDED,
    SHARD_CLAIMED,
    SHARD_STARTED,
    SHARD_SUCCEEDED,
    SHARD_FAILED,
    SHARD_RETRY_SCHEDULED,
    SHARD_LOST,
    SHARD_STOPPED,
    // slots
    MISFIRE_SKIPPED,
    MISFIRE_CAUGHT_UP,
    // alert delivery (ax-alerts): on the run or task the alert is about
    ALERT_SENT,
    ALERT_FAILED,
    // task life
    TASK_CREATED,
    TASK_UPDATED,
    TASK_DELETED,
    TASK_PAUSED,
    TASK_RESUMED,
    // workflows (no task, no run: the workflow and its run are named in data)
    WORKFLOW_CREATED,
    WORKFLOW_UPDATED,
    WORKFLOW_DELETED,
    WORKFLOW_RUN_STARTED,
    WORKFLOW_NODE_SKIPPED,
    WORKFLOW_RUN_FINISHED,
    WORKFLOW_RERUN,
    // canary rollout of a task change (PUT /api/tasks/{name}?rollout=canary)
    CANARY_STARTED,
    CANARY_PROMOTED,
    CANARY_ROLLED_BACK,
    // a draft definition run once as a test
    TEST_RUN,
    // secrets (no task, no run: data.name is the secret, never its value)
    SECRET_CREATED,
    SECRET_UPDATED,
    SECRET_DELETED,
    SECRET_KEY_ROTATED
}
