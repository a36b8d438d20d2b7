"""One claimed run on a worker, from the poll that claimed it until its completion was delivered (or it was
dropped): reports "started", calls the handler on the calling thread, ships its log, reports how it ended.

Stopping a run (terminated, lease lost, timed out, the worker's grace over) sets its stop event — ``ctx.sleep``
wakes, ``ctx.cancelled`` turns true — and, unless the worker says not to, raises :class:`Cancelled` in the handler's
thread, which Python delivers at the handler's next bytecode (a thread blocked inside a C call, ``time.sleep`` or a
socket read, gets it when that call returns). The exception is raised at most once per run and only while the thread
is inside the handler: the run's lock orders it with the handler's end, and a stop that arrives later is dropped.
Exactly one completion is reported per run, by the handler's thread or, when a timed-out handler does not end within
the grace, by the timeout's watchdog.
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading
import traceback
from typing import TYPE_CHECKING, Any, Callable, Iterable, List, Optional

from . import logcapture
from .context import Context
from .errors import Cancelled, ChannelError, NonRetryableError
from .idempotency import AlreadyDone
from .protocol import RunRef, SecretMask, WorkItem
from .runlog import STDERR, RunLog
from ._http import Backoff

if TYPE_CHECKING:  # pragma: no cover
    from .worker import Worker

log = logging.getLogger(__name__)

SDK = "sdk"
#: The longest message reported; the rest of a long result or exception message is cut.
MAX_MESSAGE_CHARS = 4000
#: The most traceback lines that go to the run's log when a handler raises.
MAX_TRACE_LINES = 60

_WAITING, _HANDLING, _ENDED = "waiting", "handling", "ended"


class Completion:
    """How an attempt ended, as ``complete`` reports it."""

    __slots__ = ("success", "failure_kind", "message")

    def __init__(self, success: bool, failure_kind: Optional[str], message: Optional[str]) -> None:
        self.success = success
        self.failure_kind = failure_kind
        self.message = message

    def __repr__(self) -> str:
        return f"Completion({self.success}, {self.failure_kind}, {self.message!r})"


# ---------------------------------------------------------------------------------------- outcomes (pure functions)


def cut(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def describe(error: BaseException) -> str:
    """``ValueError: the message`` (module-qualified for exceptions outside the builtins), as Python prints it."""
    return "".join(traceback.format_exception_only(type(error), error)).strip()


def success(result: Any) -> Completion:
    return Completion(True, None, None if result is None else cut(str(result)))


def failure(error: BaseException) -> Completion:
    """A raising handler: ``EXIT_CODE`` (retried per the task's policy); ``FATAL`` for :class:`NonRetryableError`.
    No exit code: a handler is not a process; the server words it ``failed: <exception>``."""
    kind = "FATAL" if isinstance(error, NonRetryableError) else "EXIT_CODE"
    return Completion(False, kind, cut(describe(error)))


def timeout(handler: Optional[str], seconds: Optional[int], still_running: bool) -> Completion:
    return Completion(
        False,
        "TIMEOUT",
        f"handler '{handler}' ran longer than the timeout of {seconds} s and was stopped"
        + ("; it ignored the stop and still runs" if still_running else ""),
    )


def no_handler(handler: Optional[str], registered: Iterable[str]) -> Completion:
    return Completion(
        False,
        "START_ERROR",
        f"no handler '{handler}' registered in this worker (handlers: {', '.join(sorted(registered))})",
    )


def unsupported(action_type: str) -> Completion:
    return Completion(
        False,
        "START_ERROR",
        f"action type {action_type} is not supported by this executor (an AX SDK worker runs sdk actions only)",
    )


def trace(error: BaseException) -> List[str]:
    """The traceback for the run's log; a long one keeps its first line and its last (innermost) lines."""
    lines = "".join(traceback.format_exception(type(error), error, error.__traceback__)).rstrip("\n").split("\n")
    if len(lines) > MAX_TRACE_LINES:
        left_out = len(lines) - MAX_TRACE_LINES + 1
        lines = [lines[0], f"  ... {left_out} lines left out"] + lines[-(MAX_TRACE_LINES - 2) :]
    return lines


# ---------------------------------------------------------------------------------------- raising in a thread

try:
    # PYFUNCTYPE: called with the GIL held, as the C API requires. Two prototypes of one function: a NULL exception
    # (a c_void_p None) clears a pending one, a py_object None would not.
    _SET_ASYNC_EXC: Optional[Callable[[int, Any], int]] = ctypes.PYFUNCTYPE(
        ctypes.c_int, ctypes.c_ulong, ctypes.py_object
    )(("PyThreadState_SetAsyncExc", ctypes.pythonapi))
    _CLEAR_ASYNC_EXC: Optional[Callable[[int, Any], int]] = ctypes.PYFUNCTYPE(
        ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p
    )(("PyThreadState_SetAsyncExc", ctypes.pythonapi))
except (AttributeError, OSError):  # not CPython: stopping is cooperative only
    _SET_ASYNC_EXC = _CLEAR_ASYNC_EXC = None


def _raise_in(thread_id: int) -> bool:
    """Raises :class:`Cancelled` in that thread at its next bytecode; false when this Python cannot."""
    return _SET_ASYNC_EXC is not None and _SET_ASYNC_EXC(thread_id, Cancelled) == 1


def _clear_in(thread_id: int) -> None:
    """Drops an exception raised by :func:`_raise_in` that the thread has not reached yet."""
    if _CLEAR_ASYNC_EXC is not None:
        _CLEAR_ASYNC_EXC(thread_id, None)


# ---------------------------------------------------------------------------------------- the run


class HandlerRun:
    """One claimed attempt on a worker; see the module's comment."""

    def __init__(self, worker: "Worker", item: WorkItem, handler: Optional[Callable[..., Any]]) -> None:
        self.worker = worker
        self.item = item
        self.handler = handler
        self.mask = SecretMask(item.masks)
        self.stop_event = threading.Event()
        self.stop_reason: Optional[str] = None
        self.run_log = RunLog(
            worker.channel, worker.executor_id, item.ref, lambda reason: self.abandon(f"log refused: {reason}"),
            self.mask,
        )
        self.context = Context(item, self)
        self._lock = threading.Lock()
        self._phase = _WAITING
        self._thread_id: Optional[int] = None
        self._raised = False
        self._abandon_reason: Optional[str] = None
        self._abandoned_event = threading.Event()
        self._timed_out = False
        self._reported = False
        self._timer: Optional[threading.Timer] = None
        #: A report is being delivered by a thread other than the handler's (the timeout's watchdog).
        self.report_elsewhere = False

    # ------------------------------------------------------------------------------------- seen by the context

    @property
    def ref(self) -> RunRef:
        return self.item.ref

    @property
    def channel(self) -> Any:
        return self.worker.channel

    @property
    def executor_id(self) -> str:
        return self.worker.executor_id

    @property
    def worker_running(self) -> bool:
        return self.worker.running

    @property
    def stopped(self) -> bool:
        return self.stop_event.is_set()

    @property
    def abandoned(self) -> bool:
        return self._abandon_reason is not None

    @property
    def reported(self) -> bool:
        return self._reported

    # ------------------------------------------------------------------------------------- the handler's thread

    def run_to_end(self) -> None:
        """Runs the attempt to its end on the calling thread; returns without a report when it was abandoned."""
        if self.abandoned:
            return  # taken back before it started
        if self.item.action_type != SDK:
            self._report(unsupported(self.item.action_type))
            return
        if self.handler is None:
            self._report(no_handler(self.item.handler, self.worker.handler_names))
            return
        answer = self._deliver("start", lambda: self.channel.started(self.executor_id, self.ref, os.getpid()))
        if answer is None:
            return
        if not answer.accepted:
            self.abandon(f"start refused: {answer.reason}")
            return
        self.run_log.start_sending()
        result: Any = None
        error: Optional[BaseException] = None
        try:
            if self._enter():
                result = self.handler(self.context) if self.worker.takes_context(self.handler) else self.handler()
        except BaseException as e:  # noqa: B902 - whatever the handler raised is its outcome
            error = e
        while True:
            try:
                self._leave()
                break
            except Cancelled:
                continue  # a stop that landed after the handler returned, before it was left
        self._finish(result, error)

    def _finish(self, result: Any, error: Optional[BaseException]) -> None:
        if self.abandoned:
            log.info("%s (%s) ended without a report: %s", self.ref, self.item.handler, self._abandon_reason)
            return
        if self._reported:
            log.warning(
                "handler '%s' of %s returned after its run was reported as timed out; its result is dropped",
                self.item.handler,
                self.ref,
            )
            return
        if self._timed_out:
            completion = timeout(self.item.handler, self.item.timeout_seconds, False)
        elif isinstance(error, AlreadyDone):
            completion = success(error.result)
        elif error is not None:
            self.run_log.append(STDERR, f"[ax] handler '{self.item.handler}' failed:")
            for line in trace(error):
                self.run_log.append(STDERR, line)
            completion = failure(error)
        else:
            completion = success(result)
        self._report(completion)

    def _enter(self) -> bool:
        with self._lock:
            if self._abandon_reason is not None:
                return False
            self._thread_id = threading.get_ident()
            self._phase = _HANDLING
            seconds = self.item.timeout_seconds
            if seconds is not None and seconds > 0:
                # Only now: a timeout that fired earlier would find no handler to stop.
                self._timer = threading.Timer(seconds, self._time_out)
                self._timer.daemon = True
                self._timer.name = f"ax-timeout-{self.item.instance_id}"
                self._timer.start()
        if self.worker.capture_output:
            logcapture.bind(self.run_log)
        return True

    def _leave(self) -> None:
        """Idempotent: the handler's thread calls it again if a late stop interrupted it."""
        with self._lock:
            if self._phase == _HANDLING:
                self._phase = _ENDED
                if self._raised and self._thread_id is not None:
                    _clear_in(self._thread_id)  # raised after the handler's last bytecode: must not hit the report
                self._thread_id = None
                if self._timer is not None:
                    self._timer.cancel()
        if self.worker.capture_output:
            logcapture.unbind()

    # ------------------------------------------------------------------------------------- stopping

    def abandon(self, reason: str) -> None:
        """Stops the run for good: tells its handler to stop, drops its log, and makes sure nothing more is reported
        about it. The first reason wins. Safe from any thread."""
        with self._lock:
            if self._abandon_reason is not None:
                return
            self._abandon_reason = reason
            self._stop(reason)
        self._abandoned_event.set()
        self.run_log.abort()

    def _stop(self, reason: str) -> None:
        """Under the lock: the stop event, and the exception in the handler's thread while it is in the handler."""
        if self.stop_reason is None:
            self.stop_reason = reason
        self.stop_event.set()
        if self._phase == _HANDLING and not self._raised and self.worker.stop_with_exception:
            assert self._thread_id is not None
            self._raised = _raise_in(self._thread_id)

    def _time_out(self) -> None:
        """The task's timeout passed: stop the handler; if it is still in there after the grace, report anyway."""
        with self._lock:
            if self._phase != _HANDLING or self._abandon_reason is not None:
                return
            self._timed_out = True
            self._stop(f"timed out after {self.item.timeout_seconds} s")
        watchdog = threading.Timer(self.worker.shutdown_grace, self._report_if_stuck)
        watchdog.daemon = True
        watchdog.name = f"ax-timeout-watchdog-{self.item.instance_id}"
        watchdog.start()

    def _report_if_stuck(self) -> None:
        with self._lock:
            if self._phase != _HANDLING or self._abandon_reason is not None:
                return
            self.report_elsewhere = True
        log.warning(
            "handler '%s' of %s ignores its stop; reporting the timeout while it still runs", self.item.handler, self.ref
        )
        self._report(timeout(self.item.handler, self.item.timeout_seconds, True))

    # ------------------------------------------------------------------------------------- reporting

    def _report(self, completion: Completion) -> None:
        """Sends the completion once (the log first, its message masked: an exception's message may quote a
        secret), then lets go of the lease."""
        with self._lock:
            if self._reported:
                return
            self._reported = True
        try:
            self.run_log.finish()
            message = self.mask.apply(completion.message)
            answer = self._deliver(
                "completion",
                lambda: self.channel.complete(
                    self.executor_id, self.ref, completion.success, completion.failure_kind, None, message
                ),
            )
            if answer is None:
                log.info(
                    "%s dropped before its completion was delivered: %s",
                    self.ref,
                    self._abandon_reason or "worker closing",
                )
            elif not answer.accepted:
                log.info("completion of %s refused: %s", self.ref, answer.reason)
            else:
                log.debug("%s reported: %s", self.ref, completion)
        finally:
            self.worker.released(self)

    def _deliver(self, what: str, send: Callable[[], Any]) -> Any:
        """Sends one report about this run, retrying with backoff while the server cannot be reached (the same
        report: its run reference is its key, and the server takes it once). None when the report stopped
        mattering first: the run was abandoned, or the worker is closing and the server is away."""
        backoff = Backoff()
        while not self.abandoned:
            try:
                return send()
            except ChannelError as e:
                if self.abandoned or not self.worker.running:
                    break
                if not e.retryable:
                    log.error("%s of %s refused by the server: %s; dropping the run", what, self.ref, e)
                    self.abandon(f"{what} refused: {e}")
                    break
                pause = backoff.next()
                log.warning("%s of %s not delivered: %s; retrying in %.1f s", what, self.ref, e, pause)
                self._abandoned_event.wait(pause)
        return None
