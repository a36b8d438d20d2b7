"""``print`` and ``logging`` inside a handler go to the run's log.

While a worker runs, ``sys.stdout`` and ``sys.stderr`` are routers: what a thread that runs a handler writes goes
to that run's log (``stdout`` / ``stderr``), what any other thread writes goes where it went before. A handler is
found by its thread, so lines written by threads a handler starts itself go to the process's own output; use
``ctx.log`` there. Writes to ``sys.stdout.buffer`` (bytes) and to file descriptors (a subprocess's output) are not
seen: pass ``capture_output=True`` to ``subprocess.run`` and log what it returns.

A handler on the root logger sends each record logged on a handler's thread to its run's log: ``WARNING`` and
above as ``stderr``, the rest as ``stdout``, formatted ``LEVEL logger: message``. It changes no logger's level:
records a logger drops (``INFO`` under the default ``WARNING``) never reach it, so configure logging as usual
(``logging.basicConfig(level=logging.INFO)``). Records also go to the application's own handlers. The SDK's own
records (loggers ``ax_sdk.*``) never go to a run's log.
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any, Dict, Optional, TextIO

from .runlog import STDERR, STDOUT, RunLog

_lock = threading.RLock()
_bindings: Dict[int, RunLog] = {}
_installs = 0
_handler: Optional["RunLogHandler"] = None


def bind(run_log: RunLog) -> None:
    """The calling thread's output goes to ``run_log`` until :func:`unbind`."""
    with _lock:
        if _installs > 0:
            _ensure_routers()
        _bindings[threading.get_ident()] = run_log


def unbind() -> None:
    """The calling thread's output goes where it went before; a line it left unfinished goes to its run's log."""
    with _lock:
        run_log = _bindings.pop(threading.get_ident(), None)
    if run_log is not None:
        run_log.flush_partial()


def current() -> Optional[RunLog]:
    """The log the calling thread writes to, if it runs a handler."""
    return _bindings.get(threading.get_ident())


def install() -> None:
    """Routes ``sys.stdout``/``sys.stderr`` and adds the logging handler; counted, so workers may nest."""
    global _installs, _handler
    with _lock:
        _installs += 1
        if _installs > 1:
            return
        _ensure_routers()
        _handler = RunLogHandler()
        logging.getLogger().addHandler(_handler)


def uninstall() -> None:
    """Undoes :func:`install` once the last worker closed."""
    global _installs, _handler
    with _lock:
        if _installs == 0:
            return
        _installs -= 1
        if _installs > 0:
            return
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            if isinstance(stream, _Router):
                setattr(sys, name, stream.original)
        if _handler is not None:
            logging.getLogger().removeHandler(_handler)
            _handler = None


def _ensure_routers() -> None:
    """Puts routers in place again if something replaced them since (a test runner's own capture)."""
    if not isinstance(sys.stdout, _Router):
        sys.stdout = _Router(sys.stdout, STDOUT)  # type: ignore[assignment]
    if not isinstance(sys.stderr, _Router):
        sys.stderr = _Router(sys.stderr, STDERR)  # type: ignore[assignment]


class _Router:
    """A text stream that sends a handler thread's writes to its run's log, everyone else's to ``original``."""

    def __init__(self, original: Optional[TextIO], stream: str) -> None:
        self.original = original
        self._stream = stream

    def write(self, text: str) -> int:
        run_log = _bindings.get(threading.get_ident())
        if run_log is not None:
            run_log.write(self._stream, text)
            return len(text)
        if self.original is None:
            return len(text)
        return self.original.write(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self.original is not None and threading.get_ident() not in _bindings:
            self.original.flush()

    def isatty(self) -> bool:
        return threading.get_ident() not in _bindings and self.original is not None and self.original.isatty()

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        # encoding, errors, fileno, buffer, …: the original stream's
        if self.original is None:
            raise AttributeError(name)
        return getattr(self.original, name)


class RunLogHandler(logging.Handler):
    """Sends records logged on a handler's thread to its run's log; see the module's comment."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        thread = record.thread if record.thread is not None else threading.get_ident()
        run_log = _bindings.get(thread)
        if run_log is not None and not record.name.startswith("ax_sdk"):
            try:
                run_log.append(STDERR if record.levelno >= logging.WARNING else STDOUT, self.format(record))
            except Exception:
                self.handleError(record)
            return
        if not self._others_handle(record) and logging.lastResort is not None:
            # Without this handler the record would have found no handler at all and gone to logging's last resort
            # (WARNING and above to stderr): it still does, to the process's own stderr even on a handler's thread.
            if record.levelno >= logging.lastResort.level:
                _LAST_RESORT.handle(record)

    def _others_handle(self, record: logging.LogRecord) -> bool:
        logger: Optional[logging.Logger] = logging.getLogger(record.name) if record.name != "root" else None
        if logger is None:
            logger = logging.getLogger()
        while logger is not None:
            if any(h is not self for h in logger.handlers):
                return True
            if not logger.propagate:
                return False
            logger = logger.parent  # type: ignore[assignment]
        return False


class _UnroutedStderr(logging.StreamHandler):  # type: ignore[type-arg]
    """logging's last resort, writing to the stderr the routers stand in for."""

    def __init__(self) -> None:
        logging.Handler.__init__(self, logging.WARNING)

    @property
    def stream(self) -> Any:  # type: ignore[override]
        stream = sys.stderr
        return stream.original if isinstance(stream, _Router) else stream


_LAST_RESORT = _UnroutedStderr()
