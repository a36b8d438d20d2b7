"""The AX Python SDK: run AX jobs as Python functions, exactly once with your own database.

- :class:`Worker` registers handlers by name, pulls the runs of its executor groups from an AX server over the
  executor protocol (docs/protocol.md) and reports how they end; ``print`` and ``logging`` inside a handler go to
  the run's log.
- :class:`Context` is what a handler sees: ids, attempt, parameters, the log, stopping, approvals, and
  :meth:`Context.once`, which records the run's request id in your database transaction with its work.
- :class:`Client` defines, triggers and follows tasks over the REST API.

Standard library only; Python 3.9 or newer. Guide: docs/sdk.md.
"""

from ._version import __version__
from .client import Client
from .context import Context
from .errors import (
    AuthError,
    AxClientError,
    AxError,
    Cancelled,
    ChannelError,
    NonRetryableError,
    NotApproved,
    Unanswered,
)
from .idempotency import AlreadyDone, create_table, once, run_once
from .protocol import ExecutorChannel, RunRef, WorkItem
from .worker import Worker

__all__ = [
    "__version__",
    "AlreadyDone",
    "AuthError",
    "AxClientError",
    "AxError",
    "Cancelled",
    "ChannelError",
    "Client",
    "Context",
    "ExecutorChannel",
    "NonRetryableError",
    "NotApproved",
    "RunRef",
    "Unanswered",
    "WorkItem",
    "Worker",
    "create_table",
    "once",
    "run_once",
]
