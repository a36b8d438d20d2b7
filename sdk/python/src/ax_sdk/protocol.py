"""The executor protocol, client side: each call is ``POST {server}/api/executor/<call>`` with a JSON body.

docs/protocol.md describes every call and its JSON; this module is a direct transcription. Status handling: 2xx
carries the answer; 401/403 is an :class:`AuthError`; 409 on a report (started, log, complete, approval-request,
run-state) is the server refusing it because this executor no longer holds the attempt's lease, and comes back as
a refused :class:`ReportAnswer`, not an error; no answer or 502/503/504 is :class:`Unanswered` (safe to send
again); any other status is a :class:`ChannelError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ._http import Abort, Response, Transport, dumps
from .errors import AuthError, ChannelError

#: The largest request body sent: the least a server's --max-request-size may be.
MAX_REQUEST_BYTES = 256 * 1024
#: The longest completion message or approval summary sent; the rest is cut.
MAX_TEXT_CHARS = 8000
#: How long a call may take (and a connection), until the lease is known.
CALL_TIMEOUT = 10.0

_REPORTS = ("started", "log", "complete", "approval-request", "run-state")


@dataclass(frozen=True)
class RunRef:
    """One attempt of one run, or of one shard of a sharded run: the unit a lease and its fencing token are about.

    ``attempt`` is the fencing token: a report naming an attempt that no longer holds the lease is refused.
    """

    instance_id: int
    attempt: int
    shard: Optional[int] = None

    def to_json(self) -> Dict[str, Any]:
        value: Dict[str, Any] = {"instanceId": self.instance_id, "attempt": self.attempt}
        if self.shard is not None:
            value["shard"] = self.shard
        return value

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "RunRef":
        shard = value.get("shard")
        return cls(int(value["instanceId"]), int(value["attempt"]), None if shard is None else int(shard))

    def __str__(self) -> str:
        shard = "" if self.shard is None else f" shard {self.shard}"
        return f"run {self.instance_id}{shard} attempt {self.attempt}"


@dataclass(frozen=True)
class WorkItem:
    """A claimed run, rendered by the server: everything the worker needs, and its lease is already running."""

    instance_id: int
    attempt: int
    task_name: str
    task_version: int
    request_id: Optional[str]
    scheduled_at: Optional[str]
    action_type: str
    handler: Optional[str]
    params: Mapping[str, Any]
    timeout_seconds: Optional[int]
    lease_millis: int
    shard_index: Optional[int] = None
    shard_total: Optional[int] = None
    masks: Tuple[str, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def ref(self) -> RunRef:
        return RunRef(self.instance_id, self.attempt, self.shard_index)

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "WorkItem":
        return cls(
            instance_id=int(value["instanceId"]),
            attempt=int(value["attempt"]),
            task_name=value.get("taskName") or "",
            task_version=int(value.get("taskVersion") or 0),
            request_id=value.get("requestId"),
            scheduled_at=value.get("scheduledAt"),
            action_type=value.get("actionType") or "",
            handler=value.get("handler"),
            params=dict(value.get("params") or {}),
            timeout_seconds=value.get("timeoutSeconds"),
            lease_millis=int(value.get("leaseMillis") or 0),
            shard_index=value.get("shardIndex"),
            shard_total=value.get("shardTotal"),
            masks=tuple(value.get("masks") or ()),
            raw=dict(value),
        )


@dataclass(frozen=True)
class RegisterAnswer:
    lease_millis: int
    heartbeat_millis: int
    abandon: Tuple[RunRef, ...] = ()
    lost: Tuple[RunRef, ...] = ()

    @property
    def heartbeat_seconds(self) -> float:
        """The heartbeat period: the server's, else a third of its lease, else ten seconds."""
        if self.heartbeat_millis > 0:
            return self.heartbeat_millis / 1000.0
        if self.lease_millis > 0:
            return max(0.001, self.lease_millis / 3000.0)
        return 10.0


@dataclass(frozen=True)
class HeartbeatAnswer:
    renewed: Tuple[RunRef, ...] = ()
    abandon: Tuple[RunRef, ...] = ()


@dataclass(frozen=True)
class ReportAnswer:
    """``accepted`` false: the reporter no longer holds the attempt's lease and must drop the run.
    For run-state, ``reason`` carries the run's state."""

    accepted: bool
    reason: Optional[str] = None


class SecretMask:
    """Writes ``***`` for the values of the secrets a run carries (``WorkItem.masks``) in what the worker reports.

    As the server does: each line of a value on its own, values (or lines) shorter than 4 characters left alone,
    the longest replaced first.
    """

    MASK = "***"
    MIN_LENGTH = 4

    def __init__(self, values: Iterable[Optional[str]] = ()) -> None:
        patterns = []
        for value in values:
            if value is None:
                continue
            for line in value.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
                if len(line) >= self.MIN_LENGTH and line not in patterns:
                    patterns.append(line)
        self._patterns = sorted(patterns, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._patterns)

    def apply(self, text: Optional[str]) -> Optional[str]:
        if text is None or not self._patterns:
            return text
        for pattern in self._patterns:
            if pattern in text:
                text = text.replace(pattern, self.MASK)
        return text


def cut(text: Optional[str], limit: int = MAX_TEXT_CHARS) -> Optional[str]:
    return text if text is None or len(text) <= limit else text[:limit] + "…"


def json_size(line: str) -> int:
    """The bytes ``line`` takes in a request body: as a JSON string, quotes and the comma after it included."""
    return len(json.dumps(line, ensure_ascii=True)) + 1


def _char_size(ch: str) -> int:
    """The bytes one character takes inside a JSON string written with ``ensure_ascii``."""
    code = ord(ch)
    if 0x20 <= code < 0x7F:
        return 2 if ch in '"\\' else 1
    if code < 0x20:
        return 2 if ch in "\b\f\n\r\t" else 6
    return 6 if code < 0x10000 else 12


def pieces(line: str, max_bytes: int) -> List[str]:
    """``line`` cut into pieces of at most ``max_bytes`` each as JSON (:func:`json_size`); itself when it fits."""
    if json_size(line) <= max_bytes:
        return [line]
    out: List[str] = []
    start, size = 0, 3
    for i, ch in enumerate(line):
        n = _char_size(ch)
        if i > start and size + n > max_bytes:
            out.append(line[start:i])
            start, size = i, 3
        size += n
    out.append(line[start:])
    return out


class ExecutorChannel:
    """How a worker talks to the server. Every method sends one request; see the module's comment for errors."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport
        self.call_timeout = CALL_TIMEOUT

    def lease_known(self, lease_millis: int) -> None:
        """Calls wait at most a quarter of the lease (1 to 10 s): a node that hangs is left while leases can
        still be renewed on another."""
        self.call_timeout = max(1.0, min(CALL_TIMEOUT, lease_millis / 4000.0))

    # --------------------------------------------------------------------------------------------- the calls

    def register(
        self,
        executor_id: str,
        session: str,
        groups: Sequence[str],
        host: str,
        pid: int,
        version: str,
        held: Iterable[RunRef] = (),
        labels: Sequence[str] = (),
    ) -> RegisterAnswer:
        answer = self._call(
            "register",
            {
                "executorId": executor_id,
                "session": session,
                "groups": list(groups),
                "host": host,
                "pid": pid,
                "version": version,
                "held": [ref.to_json() for ref in held],
                "labels": list(labels),
            },
        )
        return RegisterAnswer(
            lease_millis=int(answer.get("leaseMillis") or 0),
            heartbeat_millis=int(answer.get("heartbeatMillis") or 0),
            abandon=_refs(answer.get("abandon")),
            lost=_refs(answer.get("lost")),
        )

    def poll(
        self, executor_id: str, groups: Sequence[str], max_items: int, wait_millis: int, abort: Optional[Abort] = None
    ) -> List[WorkItem]:
        """Long-polls: returns as soon as work was claimed, or empty after ``wait_millis``."""
        body = {"executorId": executor_id, "groups": list(groups), "max": max_items, "waitMillis": wait_millis}
        answer = self._call("poll", body, timeout=wait_millis / 1000.0 + self.call_timeout, abort=abort)
        return [WorkItem.from_json(item) for item in ((answer or {}).get("items") or [])]

    def heartbeat(self, executor_id: str, session: str, held: Iterable[RunRef]) -> HeartbeatAnswer:
        answer = self._call(
            "heartbeat", {"executorId": executor_id, "session": session, "held": [r.to_json() for r in held]}
        )
        return HeartbeatAnswer(renewed=_refs(answer.get("renewed")), abandon=_refs(answer.get("abandon")))

    def started(self, executor_id: str, run: RunRef, pid: int) -> ReportAnswer:
        return self._report("started", {"executorId": executor_id, "run": run.to_json(), "pid": pid})

    def log(self, executor_id: str, run: RunRef, stream: str, lines: Sequence[str]) -> ReportAnswer:
        body = dumps({"executorId": executor_id, "run": run.to_json(), "stream": stream, "lines": list(lines)})
        if len(body) <= MAX_REQUEST_BYTES:
            return self._answer("log", self._post("log", body, self.call_timeout, None), report=True)
        # Larger than any request may be (a caller of its own batched too much): in halves.
        parts = list(lines) if len(lines) > 1 else pieces(lines[0], MAX_REQUEST_BYTES // 2)
        if len(parts) == 1:
            raise ValueError("a log line of one character exceeds the request size limit")  # a bug
        half = len(parts) // 2
        for part in (parts[:half], parts[half:]):
            answer = self.log(executor_id, run, stream, part)
            if not answer.accepted:
                return answer
        return ReportAnswer(True)

    def complete(
        self,
        executor_id: str,
        run: RunRef,
        success: bool,
        failure_kind: Optional[str] = None,
        exit_code: Optional[int] = None,
        message: Optional[str] = None,
    ) -> ReportAnswer:
        return self._report(
            "complete",
            {
                "executorId": executor_id,
                "run": run.to_json(),
                "success": success,
                "failureKind": failure_kind,
                "exitCode": exit_code,
                "message": cut(message),
            },
        )

    def approval_request(self, executor_id: str, run: RunRef, summary: Optional[str]) -> ReportAnswer:
        return self._report(
            "approval-request", {"executorId": executor_id, "run": run.to_json(), "summary": cut(summary)}
        )

    def run_state(self, executor_id: str, run: RunRef) -> ReportAnswer:
        """The state of a run this executor holds, in ``reason`` (``RUNNING``, ``WAITING_APPROVAL``, or the state
        that ended it); refused when this executor does not hold that attempt."""
        return self._report("run-state", {"executorId": executor_id, "run": run.to_json()})

    # --------------------------------------------------------------------------------------------- plumbing

    def _report(self, name: str, body: Dict[str, Any]) -> ReportAnswer:
        return self._answer(name, self._post(name, dumps(body), self.call_timeout, None), report=True)

    def _call(
        self, name: str, body: Dict[str, Any], timeout: Optional[float] = None, abort: Optional[Abort] = None
    ) -> Dict[str, Any]:
        response = self._post(name, dumps(body), timeout or self.call_timeout, abort)
        return self._answer(name, response, report=False)

    def _post(self, name: str, body: bytes, timeout: float, abort: Optional[Abort]) -> Response:
        return self._transport.request("POST", "/api/executor/" + name, body, timeout=timeout, abort=abort)

    @staticmethod
    def _answer(name: str, response: Response, report: bool) -> Any:
        status = response.status
        if 200 <= status < 300:
            try:
                value = response.json()
            except ValueError as e:
                raise ChannelError(f"unreadable answer to {name}: {e}", status) from e
            if value is None:
                if name == "poll":
                    return {}
                raise ChannelError(f"empty answer to {name} (HTTP {status})", status)
            return ReportAnswer(bool(value.get("accepted")), value.get("reason")) if report else value
        if status in (401, 403):
            raise AuthError(f"executor token refused by the server: {response.error_message()}", status)
        if status == 409 and report and name in _REPORTS:
            try:
                reason = (response.json() or {}).get("reason")
            except ValueError:
                reason = None
            return ReportAnswer(False, reason or f"HTTP 409: {response.text()[:200]}")
        raise ChannelError(f"the server answered {name} with {response.error_message()}", status)


def _refs(values: Optional[Iterable[Mapping[str, Any]]]) -> Tuple[RunRef, ...]:
    return tuple(RunRef.from_json(v) for v in (values or ()))
