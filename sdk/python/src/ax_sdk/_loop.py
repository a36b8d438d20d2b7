"""The pull loop of a worker (the Java SDK's is ax-executor's ``PullLoop``): its threads, slots and held leases.

A **poll** thread long-polls for as many runs as there are free slots and waits while every slot is busy, so the
server never hands out work that cannot start; a **heartbeat** thread renews the leases held — separately, because a
long poll may block longer than a lease may go unrenewed — and learns which runs to stop; each run gets a thread of
its own. A run is held (its lease renewed) from the poll that claimed it until its completion was delivered or it
was dropped. The loops never die: an unreachable server is retried with backoff, anything else is logged and counted
in :attr:`PullLoop.errors`, which the tests expect to stay zero.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Callable, Dict, List, Optional

from ._http import Abort, Backoff
from ._run import HandlerRun
from .errors import ChannelError
from .protocol import RunRef, WorkItem

if TYPE_CHECKING:  # pragma: no cover
    from .worker import Worker

log = logging.getLogger(__name__)


class PullLoop:
    """Polls and heartbeats for one :class:`~ax_sdk.Worker`, and runs what it is handed."""

    def __init__(self, worker: "Worker") -> None:
        self._worker = worker
        self._name = f"AX worker {worker.executor_id}"
        self._held: Dict[RunRef, HandlerRun] = {}
        self._lock = threading.RLock()  # "admit a run" and "stop" exclude each other; guards _held
        self._slots = threading.Condition()
        self._busy = 0  # run threads alive, guarded by _slots
        self._abort = Abort()
        self._stopping = threading.Event()
        self._heartbeat_stop = threading.Event()
        self._heartbeat_period = 0.0
        self._heartbeat_failing = False
        self._poll_thread: Optional[threading.Thread] = None
        self._session = ""
        self.running = False
        #: Unexpected errors caught by the loops (bugs, not outages).
        self.errors = 0

    # ------------------------------------------------------------------------------------------- lifecycle

    def start(self, session: str, heartbeat_period: Optional[float]) -> None:
        """Starts polling and heartbeating for ``session``. ``heartbeat_period`` is what a registration gave; None
        when the worker has not registered yet, and the poll thread registers first, retrying with backoff."""
        with self._lock:
            self._session = session
            self.running = True
            if heartbeat_period is not None:
                self._start_heartbeat(heartbeat_period)
            self._poll_thread = threading.Thread(
                target=self._poll_loop,
                args=(heartbeat_period is not None,),
                name=f"ax-poll-{self._worker.executor_id}",
                daemon=True,
            )
            self._poll_thread.start()

    def stop(self) -> bool:
        """Stops taking runs (the runs go on, and so do heartbeats until :meth:`stop_heartbeat`); false when it was
        not running."""
        with self._lock:
            if not self.running:
                return False
            self.running = False
        self._stopping.set()
        self._abort.abort()  # ends a long poll at once; the server claims only when a poll arrives
        with self._slots:
            self._slots.notify_all()
        if self._poll_thread is not None:
            self._poll_thread.join(2.0)
        return True

    def stop_heartbeat(self) -> None:
        """Stops renewing the leases held: their runs are the server's to fail once they expire."""
        self._heartbeat_stop.set()

    def await_idle(self, seconds: float, hurry: Callable[[], bool] = lambda: False) -> bool:
        """Waits until no run thread is alive, up to ``seconds`` or until ``hurry()``; true when idle."""
        deadline = time.monotonic() + seconds
        with self._slots:
            while self._busy > 0:
                left = deadline - time.monotonic()
                if left <= 0 or hurry():
                    return False
                self._slots.wait(min(left, 0.1))
            return True

    # ------------------------------------------------------------------------------------------- held runs

    def held_refs(self) -> List[RunRef]:
        with self._lock:
            return list(self._held)

    def held_runs(self) -> List[HandlerRun]:
        with self._lock:
            return list(self._held.values())

    def released(self, run: HandlerRun) -> None:
        """The run's completion was delivered (or it was dropped): its lease is no longer ours to renew."""
        with self._lock:
            if self._held.get(run.ref) is run:
                del self._held[run.ref]

    def let_go(self, ref: RunRef, reason: str) -> None:
        """The server let go of a run: stop it here, unless it is over here too."""
        with self._lock:
            run = self._held.get(ref)
        if run is None or run.reported:
            # A heartbeat that crossed the run's completion: the server let go of a run that is over here too.
            return
        log.info("%s: stopping %s: %s", self._name, ref, reason)
        run.abandon(reason)

    # ------------------------------------------------------------------------------------------- polling

    def _poll_loop(self, registered: bool) -> None:
        backoff = Backoff()
        while self.running:
            try:
                if not registered:
                    registered = self._register_in_background(backoff)
                else:
                    self._poll_once(backoff)
            except Exception:
                self.errors += 1
                log.exception("%s: unexpected error in the poll loop; going on", self._name)
                self._stopping.wait(backoff.next())  # a persistent bug must not turn into a hot loop

    def _register_in_background(self, backoff: Backoff) -> bool:
        try:
            period = self._worker.register()
        except ChannelError as e:
            pause = backoff.next()
            log.warning("%s cannot register: %s; retrying in %.1f s", self._name, e, pause)
            self._stopping.wait(pause)
            return False
        backoff.reset()
        with self._lock:
            if self.running:
                self._start_heartbeat(period)
        return True

    def _poll_once(self, backoff: Backoff) -> None:
        free = self._await_free_slots()
        if not self.running:
            return
        worker = self._worker
        try:
            items = worker.channel.poll(
                worker.executor_id, worker.groups, free, int(worker.poll_wait * 1000), abort=self._abort
            )
        except ChannelError as e:
            if not self.running:
                return
            pause = backoff.next()
            log.warning("%s: poll failed: %s; retrying in %.1f s", self._name, e, pause)
            self._stopping.wait(pause)
            return
        backoff.reset()
        if len(items) > free:
            # Their leases are already ticking: refusing them would only delay them until the leases expire.
            log.warning("%s: server sent %d runs for %d free slots; running them all", self._name, len(items), free)
        for item in items:
            self._admit(item)

    def _await_free_slots(self) -> int:
        concurrency = self._worker.concurrency
        with self._slots:
            while self.running and self._busy >= concurrency:
                self._slots.wait()
            return concurrency - self._busy

    def _admit(self, item: WorkItem) -> None:
        with self._lock:
            if not self.running:
                log.info("%s: not starting %s: closing; its lease will expire", self._name, item.ref)
                return
            if item.ref in self._held:
                log.warning("%s: %s was handed out again while it runs here; ignoring the duplicate", self._name,
                            item.ref)
                return
            run = HandlerRun(self._worker, item, self._worker.handler_for(item))
            self._held[item.ref] = run
            with self._slots:
                self._busy += 1
            name = item.handler if item.handler else item.action_type
            threading.Thread(
                target=self._execute, args=(run,), name=f"ax-handler-{name}-{item.instance_id}", daemon=True
            ).start()

    def _execute(self, run: HandlerRun) -> None:
        try:
            run.run_to_end()
        except BaseException:  # noqa: B902 - a run's thread must always give its slot back
            self.errors += 1
            log.exception("%s: unexpected error running %s; stopping it", self._name, run.ref)
            run.abandon("worker error")
        finally:
            if not run.report_elsewhere:
                self.released(run)
            with self._slots:
                self._busy -= 1
                self._slots.notify_all()

    # ------------------------------------------------------------------------------------------- heartbeat

    def _start_heartbeat(self, period: float) -> None:
        self._heartbeat_period = period
        threading.Thread(
            target=self._heartbeat_loop, name=f"ax-heartbeat-{self._worker.executor_id}", daemon=True
        ).start()

    def _heartbeat_loop(self) -> None:
        worker = self._worker
        while not self._heartbeat_stop.wait(self._heartbeat_period):
            try:
                answer = worker.channel.heartbeat(worker.executor_id, self._session, self.held_refs())
                if self._heartbeat_failing:
                    log.info("%s: heartbeats reach the server again", self._name)
                    self._heartbeat_failing = False
                for ref in answer.abandon:
                    self.let_go(ref, "abandoned by the server (terminated, or the lease was lost)")
            except ChannelError as e:
                # The runs go on; if a lease expires meanwhile, the next answer's "abandon" says so.
                if not self._heartbeat_failing:
                    log.warning("%s: heartbeat failed: %s; runs go on, retrying", self._name, e)
                    self._heartbeat_failing = True
            except Exception:
                self.errors += 1
                log.exception("%s: unexpected error in the heartbeat", self._name)
