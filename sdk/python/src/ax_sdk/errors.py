"""The exceptions of the AX SDK."""

from __future__ import annotations

from typing import Optional


class AxError(Exception):
    """Base class of the errors the SDK raises about talking to AX."""


class ChannelError(AxError):
    """A call to the AX server failed: it could not be reached, or it answered with an error.

    ``status`` is the HTTP status, 0 when no answer came at all.
    """

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status

    @property
    def retryable(self) -> bool:
        """Whether sending the same request again may succeed: no answer, or a server error (5xx)."""
        return self.status == 0 or self.status >= 500


class Unanswered(ChannelError):
    """No answer: no connection, a reset, a timeout, or a gateway's 502/503/504. Another node may answer."""


class AuthError(ChannelError):
    """The server refused the token (401) or its role (403)."""

    @property
    def retryable(self) -> bool:
        return False


class AxClientError(AxError):
    """A REST call of :class:`ax_sdk.Client` failed. ``status`` is 0 when the server could not be reached."""

    def __init__(self, status: int, message: str, body: Optional[str] = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class NonRetryableError(Exception):
    """Raised by a handler: the run fails at once as ``FATAL`` and is never retried, whatever its policy says."""


class Cancelled(BaseException):
    """The run was stopped: terminated, its lease lost, its timeout passed, or the worker closing after its grace.

    The worker raises it in the handler's thread (see ``Worker(stop_with_exception=...)``) and from
    :meth:`Context.sleep`, :meth:`Context.check_cancelled` and :meth:`Context.request_approval`. It derives from
    ``BaseException``, like ``KeyboardInterrupt``, so that ``except Exception`` in a handler does not swallow it.
    Clean up in ``finally`` blocks; nothing a stopped handler returns is reported.
    """

    def __str__(self) -> str:
        return super().__str__() or "the run was stopped"


class NotApproved(Cancelled):
    """:meth:`Context.request_approval`: the person rejected the request, or it expired; the run is canceled."""
