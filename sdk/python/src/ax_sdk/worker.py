"""The worker: AX jobs as Python functions, pulled from an AX server over the executor protocol.

::

    from ax_sdk import Worker

    worker = Worker("http://ax:7070", token=os.environ["AX_TOKEN"], groups=["orders"])

    @worker.handler("syncOrders")
    def sync_orders(ctx):
        print("syncing since", ctx.params["since"])     # goes to the run's log
        return "synced 120 orders"                       # the run's message

    worker.run()                                         # until SIGTERM or Ctrl-C

The worker registers, then its pull loop (:mod:`ax_sdk._loop`) polls for as many runs as it has free slots and
heartbeats the leases it holds; each run (:mod:`ax_sdk._run`) gets a thread of its own. When the server says to stop
a run (terminated, or its lease was lost), its handler is told to stop and nothing more is reported about it: the
server has decided already. Unexpected errors in the loops are logged and counted in :attr:`Worker.error_count`.
"""

from __future__ import annotations

import inspect
import logging
import os
import signal
import socket
import threading
import time
import uuid
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, TypeVar, Union

from . import logcapture
from ._http import Transport
from ._loop import PullLoop
from ._version import __version__
from .errors import ChannelError
from .protocol import ExecutorChannel, RunRef, WorkItem

log = logging.getLogger(__name__)

Handler = Callable[..., Any]
H = TypeVar("H", bound=Handler)

DEFAULT_CONCURRENCY = 4
DEFAULT_POLL_WAIT = 20.0
DEFAULT_SHUTDOWN_GRACE = 10.0


class Worker:
    """Registers handlers by name, serves the runs of its executor groups, and reports how they end.

    :param server: the AX server's URL (``http://ax:7070``), or the URLs of several nodes of one cluster (the worker
        talks to one and goes on with the next when it stops answering, keeping its runs)
    :param token: a token with role ``executor`` (``ax token create w --role executor --group orders``), or admin
    :param groups: the executor groups served (a task's ``action.group``): one name or several
    :param executor_id: the worker's name in AX (default ``<host>-<pid>``). A name that stays the same across
        restarts (a pod name) lets AX fail the runs a crashed worker held as soon as it registers again instead of
        when their leases expire; it must be unique among running workers
    :param concurrency: handlers running at the same time
    :param poll_wait: seconds one long-poll may wait on the server for work
    :param shutdown_grace: seconds running handlers get to finish and report when the worker closes; also how long a
        handler stopped by its timeout has to end before the timeout is reported without it
    :param ca: for an ``https://`` server, a PEM file of the CA certificate(s) to trust instead of the system's
    :param labels: environment labels (``prod``): tasks whose ``environment`` lists labels run only on workers
        carrying all of them
    :param fail_fast: :meth:`start` raises when the server cannot be reached or refuses the token; ``False``: keep
        trying to register in the background
    :param capture_output: ``print`` and ``logging`` on a handler's thread go to its run's log
        (:mod:`ax_sdk.logcapture`)
    :param stop_with_exception: a stopped handler (terminated, lease lost, timed out) also gets :class:`Cancelled`
        raised in its thread; ``False``: it is only told, through ``ctx.cancelled`` and ``ctx.sleep``
    :param ssl_context: for an ``https://`` server, the :class:`ssl.SSLContext` to connect with (instead of ``ca``)
    :param channel: talk to the server through this :class:`~ax_sdk.ExecutorChannel` instead of one made from
        ``server`` and ``token`` (tests, custom transports)
    """

    def __init__(
        self,
        server: Union[str, Sequence[str]],
        token: str,
        groups: Union[str, Sequence[str]],
        *,
        executor_id: Optional[str] = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        poll_wait: float = DEFAULT_POLL_WAIT,
        shutdown_grace: float = DEFAULT_SHUTDOWN_GRACE,
        ca: Optional[str] = None,
        ssl_context: Any = None,
        labels: Sequence[str] = (),
        fail_fast: bool = True,
        capture_output: bool = True,
        stop_with_exception: bool = True,
        channel: Optional[ExecutorChannel] = None,
    ) -> None:
        servers = [server] if isinstance(server, str) else list(server or ())
        group_list = [groups] if isinstance(groups, str) else list(groups or ())
        if not group_list or any(not g or not g.strip() for g in group_list):
            raise ValueError("groups: serve at least one executor group (a task's action.group), none blank")
        if not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, was {concurrency!r}")
        if poll_wait < 0:
            raise ValueError(f"poll_wait must be zero or positive, was {poll_wait!r}")
        if shutdown_grace < 0:
            raise ValueError(f"shutdown_grace must be zero or positive, was {shutdown_grace!r}")
        if executor_id is not None and not executor_id.strip():
            raise ValueError("executor_id must not be blank")
        self.channel = channel or ExecutorChannel(Transport(servers, token, ca=ca, ssl_context=ssl_context,
                                                           user_agent=f"ax-sdk-python/{__version__}"))
        self._executor_id = executor_id or f"{socket.gethostname()}-{os.getpid()}"
        self._groups = group_list
        self._labels = list(labels)
        self.concurrency = concurrency
        self.poll_wait = float(poll_wait)
        self.shutdown_grace = float(shutdown_grace)
        self.fail_fast = fail_fast
        self.capture_output = capture_output
        self.stop_with_exception = stop_with_exception
        self.version = f"ax-sdk-python {__version__}"

        self._handlers: Dict[str, Handler] = {}
        self._takes_context: Dict[Handler, bool] = {}
        self._lifecycle = threading.Lock()
        self._started = False
        self._session = ""
        self._signals = 0
        self._loop = PullLoop(self)

    # ------------------------------------------------------------------------------------------- handlers

    def handler(self, name: str, fn: Optional[H] = None) -> Any:
        """Registers ``fn`` under the name tasks use (``action.handler``); as a decorator without ``fn``.

        A handler takes the run's :class:`~ax_sdk.Context` (or nothing) and returns the run's message (``None`` for
        none). Raising fails the attempt (retried per the task's policy; :class:`~ax_sdk.NonRetryableError` never).
        """
        if not name or not name.strip():
            raise ValueError("a handler name must not be blank")

        def register(f: H) -> H:
            if not callable(f):
                raise TypeError(f"handler '{name}' is not callable")
            if name in self._handlers:
                raise ValueError(f"more than one handler named '{name}'")
            if self._started:
                raise RuntimeError(f"handler '{name}': register handlers before the worker starts")
            self._handlers[name] = f
            self._takes_context[f] = _takes_argument(f)
            return f

        return register if fn is None else register(fn)

    @property
    def handler_names(self) -> List[str]:
        return sorted(self._handlers)

    def takes_context(self, fn: Handler) -> bool:
        return self._takes_context.get(fn, True)

    def handler_for(self, item: WorkItem) -> Optional[Handler]:
        """The handler a work item names; None for an unknown name or an action type other than ``sdk``."""
        return self._handlers.get(item.handler or "") if item.action_type == "sdk" else None

    # ------------------------------------------------------------------------------------------- lifecycle

    def start(self) -> "Worker":
        """Registers with the server, then starts polling and heartbeating; returns this worker.

        With ``fail_fast`` (the default) a server that cannot be reached or refuses the token raises
        :class:`~ax_sdk.ChannelError` here, so a wrong URL or token shows at once.
        """
        with self._lifecycle:
            if self._started:
                raise RuntimeError(f"worker {self._executor_id} was already started")
            if not self._handlers:
                raise ValueError("handlers: register at least one handler")
            self._session = str(uuid.uuid4())
            period: Optional[float] = None
            try:
                period = self.register()
            except ChannelError as e:
                if self.fail_fast:
                    raise
                log.warning("AX worker %s cannot register yet: %s; retrying in the background", self._executor_id, e)
            self._started = True
            if self.capture_output:
                logcapture.install()
            self._loop.start(self._session, period)
        return self

    def close(self, grace: Optional[float] = None) -> None:
        """Stops taking runs, gives the running handlers ``grace`` seconds (default ``shutdown_grace``) to finish
        and report, their leases still renewed, then stops the rest; those are not reported: their leases expire on
        the server, which fails them as ``EXECUTOR_LOST`` and lets the task's retry policy decide. Idempotent."""
        if not self._loop.stop():
            return
        try:
            if not self._loop.await_idle(self.shutdown_grace if grace is None else grace, self._hurry):
                for run in self._loop.held_runs():
                    run.abandon("worker shutting down")
                if not self._loop.await_idle(0.5):
                    log.warning(
                        "AX worker %s: handlers of %s ignore their stop and still run",
                        self._executor_id,
                        ", ".join(str(r) for r in self.active_runs) or "runs",
                    )
        finally:
            self._loop.stop_heartbeat()
            if self.capture_output:
                logcapture.uninstall()
        log.info("AX worker %s closed", self._executor_id)

    def run(self) -> None:
        """Starts, serves until SIGTERM or SIGINT (Ctrl-C), then closes gracefully (:meth:`close`); a second signal
        stops the running handlers at once. Signals are handled only when called on the main thread."""
        self.start()
        previous = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                previous[sig] = signal.signal(sig, self._on_signal)
        try:
            while self._signals == 0 and self.running:
                time.sleep(0.1)
            if self._signals:
                log.info("AX worker %s: stopping (signal); running handlers get %.0f s", self._executor_id,
                         self.shutdown_grace)
        finally:
            self.close()
            for sig, handler in previous.items():
                if handler is not None:  # None: installed outside Python, cannot be put back
                    signal.signal(sig, handler)

    def request_stop(self) -> None:
        """Asks :meth:`run` to close the worker, as SIGTERM does; a second call stops running handlers at once.
        Safe from a signal handler: it only counts."""
        self._signals += 1

    def _on_signal(self, signum: int, frame: Any) -> None:
        self.request_stop()

    def _hurry(self) -> bool:
        return self._signals >= 2

    def __enter__(self) -> "Worker":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------- state

    @property
    def executor_id(self) -> str:
        return self._executor_id

    @property
    def groups(self) -> List[str]:
        return list(self._groups)

    @property
    def running(self) -> bool:
        """True from :meth:`start` until :meth:`close` begins."""
        return self._loop.running

    @property
    def active_runs(self) -> Set[RunRef]:
        """The runs this worker holds right now (claimed, not yet reported or dropped)."""
        return set(self._loop.held_refs())

    @property
    def error_count(self) -> int:
        """Unexpected errors caught by the worker's loops since it started (bugs, not outages)."""
        return self._loop.errors

    def released(self, run: Any) -> None:
        """A run's completion was delivered (or it was dropped): its lease is no longer renewed."""
        self._loop.released(run)

    # ------------------------------------------------------------------------------------------- registration

    def register(self) -> float:
        """Registers this worker's session (again, with the runs it holds); returns the heartbeat period."""
        answer = self.channel.register(
            self._executor_id,
            self._session,
            self._groups,
            socket.gethostname(),
            os.getpid(),
            self.version,
            self._loop.held_refs(),
            self._labels,
        )
        for ref in answer.abandon:
            self._loop.let_go(ref, "abandoned by the server at registration")
        self.channel.lease_known(answer.lease_millis)
        log.info(
            "AX worker %s registered (groups %s, handlers %s, concurrency %d, lease %d ms)",
            self._executor_id,
            ", ".join(self._groups),
            ", ".join(self.handler_names),
            self.concurrency,
            answer.lease_millis,
        )
        return answer.heartbeat_seconds

    def __repr__(self) -> str:
        return f"Worker({self._executor_id}, groups={self._groups}, handlers={self.handler_names})"


def _takes_argument(fn: Handler) -> bool:
    """Whether a handler takes the context: ``def h(ctx)`` does, ``def h()`` does not."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    positional = [
        p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    return bool(positional)
