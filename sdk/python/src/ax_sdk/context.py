"""What a handler knows about the attempt it runs, and how it talks back to AX."""

from __future__ import annotations

import datetime
import logging
import types
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional

from ._http import Backoff
from .errors import Cancelled, ChannelError, NotApproved
from .idempotency import Once, Recorded, run_once
from .protocol import RunRef, WorkItem
from .runlog import STDOUT

if TYPE_CHECKING:  # pragma: no cover
    from ._run import HandlerRun

log = logging.getLogger(__name__)

#: How often a handler waiting for approval asks whether it came.
APPROVAL_POLL_SECONDS = 0.5


class Context:
    """One attempt of one run, as its handler sees it. Safe to use from threads the handler starts, as long as the
    attempt lasts."""

    def __init__(self, item: WorkItem, run: "HandlerRun") -> None:
        self._item = item
        self._run = run
        self._params: Mapping[str, Any] = types.MappingProxyType(dict(item.params))

    # ------------------------------------------------------------------------------------------------ the run

    @property
    def request_id(self) -> str:
        """The key of this piece of work: the same for every attempt and re-delivery of the run (``ax-<instance
        id>``, or the task's rendered ``policy.idempotencyKey``; ``…:shard-<i>`` for a shard). Pass it to other
        systems as their idempotency key; :meth:`once` records it."""
        return self._item.request_id or f"ax-{self._item.instance_id}"

    @property
    def instance_id(self) -> int:
        """The run's id (``ax run show ID``)."""
        return self._item.instance_id

    @property
    def attempt(self) -> int:
        """1 for the first attempt, 2 for the first retry, …; a shard's own attempt for a shard."""
        return self._item.attempt

    @property
    def task_name(self) -> str:
        return self._item.task_name

    @property
    def task_version(self) -> int:
        return self._item.task_version

    @property
    def handler(self) -> str:
        """The handler name the task's action gives."""
        return self._item.handler or ""

    @property
    def scheduled_at(self) -> Optional[datetime.datetime]:
        """The schedule slot the run is for (UTC); for a run without one (manual, event), when it was created."""
        return parse_instant(self._item.scheduled_at)

    @property
    def params(self) -> Mapping[str, Any]:
        """The run's parameters as JSON types (str, int, float, bool, list, dict), read-only."""
        return self._params

    def param(self, name: str, default: Any = None) -> Any:
        """One parameter, or ``default`` when absent."""
        return self._params.get(name, default)

    @property
    def shard_index(self) -> int:
        """Which shard of a sharded run (``policy.sharding``) this call is, from 0; 0 for a run that is not."""
        return self._item.shard_index or 0

    @property
    def shard_total(self) -> int:
        """How many shards the run has; 1 for a run that is not sharded."""
        return self._item.shard_total or 1

    @property
    def timeout_seconds(self) -> Optional[int]:
        """The task's ``policy.timeoutSeconds``; None when it has none."""
        return self._item.timeout_seconds

    @property
    def run_ref(self) -> RunRef:
        """The attempt as the protocol names it (its lease's fencing token)."""
        return self._item.ref

    # ------------------------------------------------------------------------------------------------ the log

    def log(self, text: object, *, stream: str = STDOUT) -> None:
        """Appends a line (or several, split at line breaks) to the run's log, shipped at once without blocking.
        ``print`` and ``logging`` on the handler's thread get there too."""
        self._run.run_log.append(stream, text)

    def progress(self, percent: int, note: str = "") -> None:
        """Logs ``[progress] 40% note``."""
        if not 0 <= percent <= 100:
            raise ValueError(f"percent must be between 0 and 100, was {percent}")
        self.log(f"[progress] {percent}% {note}" if note and note.strip() else f"[progress] {percent}%")

    # ------------------------------------------------------------------------------------------------ stopping

    @property
    def cancelled(self) -> bool:
        """True once the attempt should stop: an operator terminated it, the worker lost its lease, the task's
        timeout passed, or the worker is closing (then the handler may still finish within the grace)."""
        return self._run.stopped or not self._run.worker_running

    @property
    def stopped(self) -> bool:
        """True once the attempt was stopped for good (terminated, lease lost, timed out, grace over): nothing it
        does now is reported."""
        return self._run.stopped

    def check_cancelled(self) -> None:
        """Raises :class:`Cancelled` if the attempt was stopped."""
        if self._run.stopped:
            raise Cancelled(self._run.stop_reason or "the run was stopped")

    def sleep(self, seconds: float) -> None:
        """Sleeps like ``time.sleep``, but raises :class:`Cancelled` as soon as the attempt is stopped."""
        if self._run.stop_event.wait(max(0.0, seconds)):
            raise Cancelled(self._run.stop_reason or "the run was stopped")

    # ------------------------------------------------------------------------------------------------ approval

    def request_approval(self, summary: str) -> None:
        """Asks a person to confirm before the handler goes on, and blocks until they decide.

        The run waits in ``WAITING_APPROVAL`` (keeping its lease) with ``summary`` shown to the approvers
        (``ax run approve ID``, the console). Returns when approved. Raises :class:`NotApproved` (a
        :class:`Cancelled`) when the request is rejected or expires — the run is canceled — and
        :class:`Cancelled` when the run is stopped meanwhile.
        """
        channel, executor_id, ref = self._run.channel, self._run.executor_id, self._item.ref
        asked = self._call(lambda: channel.approval_request(executor_id, ref, self._run.mask.apply(summary)))
        if not asked.accepted:
            raise Cancelled(f"approval request refused: {asked.reason}")
        self.log(f"[ax] waiting for approval: {summary or ''}")
        try:
            while True:
                self.check_cancelled()
                state = self._call(lambda: channel.run_state(executor_id, ref))
                if not state.accepted:
                    raise Cancelled(state.reason or "the run is no longer this worker's")
                if state.reason == "RUNNING":
                    self.log("[ax] approved; going on")
                    return
                if state.reason != "WAITING_APPROVAL":
                    raise NotApproved(f"approval not given: the run is {state.reason}")
                self.sleep(APPROVAL_POLL_SECONDS)
        except NotApproved:
            raise
        except Cancelled as stopped:
            # A rejection cancels the run, and the heartbeat that says so may come before the next look at its
            # state: ask once more, so that a rejected or expired request always reads as NotApproved.
            state = None
            for _ in range(2):  # twice: the stop's exception may land in the first call
                try:
                    state = channel.run_state(executor_id, ref)
                    break
                except ChannelError:
                    raise stopped from None
                except Cancelled:
                    continue
            if state is not None and state.accepted and state.reason == "CANCELED":
                raise NotApproved(f"approval not given: the run is {state.reason}") from None
            raise

    def _call(self, send: Callable[[], Any]) -> Any:
        """Sends a request about this run, retrying with backoff while the server cannot be reached."""
        backoff = Backoff()
        while True:
            self.check_cancelled()
            try:
                return send()
            except ChannelError as e:
                if not e.retryable:
                    raise
                pause = backoff.next()
                log.warning("%s: %s; retrying in %.1f s", self._item.ref, e, pause)
                self.sleep(pause)

    # ------------------------------------------------------------------------------------------------ once

    def once(self, conn: Any, *, commit: bool = True, paramstyle: Optional[str] = None) -> Once:
        """Marks :attr:`request_id` done in ``conn``'s transaction together with the ``with`` block's work::

            with ctx.once(conn) as once:
                conn.execute("INSERT INTO orders (request_id) VALUES (?)", (ctx.request_id,))
                once.result = "order placed"        # optional: recorded, and the run's message

        On a re-delivery whose work committed before, the block does not run: :class:`AlreadyDone` ends the
        handler, and the run succeeds with the recorded result (the run's log says so). See
        :mod:`ax_sdk.idempotency`.
        """
        return Once(conn, self.request_id, commit=commit, paramstyle=paramstyle, on_replay=self._replayed)

    def run_once(self, conn: Any, work: Callable[[Any], Any]) -> Optional[str]:
        """``work(conn)`` once for :attr:`request_id`, committed with it; a replay returns the recorded result
        without calling ``work``. The Java SDK's ``ctx.runOnce``."""
        return run_once(conn, self.request_id, work, on_replay=self._replayed)

    def _replayed(self, recorded: Recorded) -> None:
        self.log(
            f"[ax] request {recorded.request_id} was already done (recorded {recorded.created_at}); "
            "not doing it again, returning its recorded result"
        )

    def __repr__(self) -> str:
        return (
            f"Context({self.task_name} #{self.instance_id} attempt {self.attempt}, request {self.request_id})"
        )


def parse_instant(text: Optional[str]) -> Optional[datetime.datetime]:
    """An ISO-8601 instant as AX writes it (``2026-12-04T17:30:54.821247Z``) as an aware datetime in UTC."""
    if not text:
        return None
    value = text.strip()
    if value.endswith("Z") or value.endswith("z"):
        value = value[:-1] + "+00:00"
    # Python before 3.11 takes at most 6 digits of a second's fraction.
    if "." in value:
        head, _, tail = value.partition(".")
        digits = len(tail) - len(tail.lstrip("0123456789"))
        value = head + "." + (tail[:digits][:6].ljust(6, "0")) + tail[digits:]
    parsed = datetime.datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.timezone.utc)
    return parsed.astimezone(datetime.timezone.utc)
