/**
 * The executor protocol: what executors and servers say to each other (as JSON over HTTP for a
 * remote executor, as direct calls for the in-process one). Executors pull: register, poll for
 * work in their groups, heartbeat to keep their leases, stream logs, report the outcome. Every
 * report about a run carries the attempt number, which is the lease's fencing token: a report
 * for an attempt that no longer holds the lease is refused.
 */
package dev.ax.domain.protocol;
