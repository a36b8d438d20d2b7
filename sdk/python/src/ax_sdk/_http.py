"""HTTP for the worker and the client: one request per connection, several nodes, TLS, backoff.

Each request opens a connection of its own and closes it after the answer (``Connection: close``). A worker sends
a few requests a second at most, so a connection per request costs nothing that matters, and no connection is ever
found closed by the server after it sat idle in a pool.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import urllib.parse
from typing import Any, Dict, Iterable, List, Optional, Sequence

from .errors import ChannelError, Unanswered

USER_AGENT = "ax-sdk-python"
#: Statuses that mean "this node cannot serve now": the request goes to the next node, and is safe to send again.
GATEWAY_STATUSES = (502, 503, 504)
_EXCERPT_CHARS = 200


class Response:
    """A status and a body."""

    __slots__ = ("status", "body")

    def __init__(self, status: int, body: bytes) -> None:
        self.status = status
        self.body = body

    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        """The body as JSON; ``None`` for an empty body."""
        text = self.text()
        return json.loads(text) if text.strip() else None

    def error_message(self) -> str:
        """The server's ``{"error":{"message":…}}``, or the start of whatever came back (a proxy's page)."""
        try:
            message = (self.json() or {}).get("error", {}).get("message")
            if isinstance(message, str) and message.strip():
                return f"{message} (HTTP {self.status})"
        except (ValueError, AttributeError):
            pass
        return f"HTTP {self.status}: {excerpt(self.text())}"


def excerpt(text: str) -> str:
    flat = " ".join(text.split())
    if not flat:
        return "(empty body)"
    return flat if len(flat) <= _EXCERPT_CHARS else flat[:_EXCERPT_CHARS] + "…"


def dumps(value: Any) -> bytes:
    """Compact JSON, ASCII only (so its length in characters is its length in bytes)."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def tls_context(ca: Optional[str] = None) -> ssl.SSLContext:
    """A client TLS context that checks certificates and host names: against ``ca`` (a PEM file of CA
    certificates, and only those) when given, else against the system's CAs."""
    if ca is None:
        return ssl.create_default_context()
    # This file's CAs instead of the system's, as `curl --cacert` and `ax --ca` do; certificates and host names
    # are checked (PROTOCOL_TLS_CLIENT's defaults).
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    try:
        context.load_verify_locations(cafile=ca)
    except (OSError, ssl.SSLError) as e:
        raise ValueError(f"ca: cannot read CA certificates from {ca}: {e}") from e
    return context


class Abort:
    """Lets another thread cut requests short: once :meth:`abort` is called, the request under way has its socket
    shut down (a long poll ends at once) and later ones fail before they start."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: Optional[http.client.HTTPConnection] = None
        self._aborted = False

    @property
    def aborted(self) -> bool:
        return self._aborted

    def attach(self, conn: http.client.HTTPConnection) -> bool:
        with self._lock:
            if self._aborted:
                return False
            self._conn = conn
            return True

    def connected(self) -> None:
        """The attached connection has its socket now: an abort from here on shuts it down."""
        with self._lock:
            if self._aborted:
                self._shutdown()

    def detach(self) -> None:
        with self._lock:
            self._conn = None

    def abort(self) -> None:
        with self._lock:
            self._aborted = True
            self._shutdown()

    def _shutdown(self) -> None:
        sock = getattr(self._conn, "sock", None) if self._conn is not None else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Backoff:
    """Pauses between attempts to reach the server: 100 ms, doubling, at most 5 s; :meth:`reset` after a success."""

    FIRST = 0.1
    MAX = 5.0

    def __init__(self, first: float = FIRST, maximum: float = MAX) -> None:
        self._first = first
        self._max = maximum
        self._next = first

    def next(self) -> float:
        pause = self._next
        self._next = min(self._next * 2, self._max)
        return pause

    def reset(self) -> None:
        self._next = self._first


def _describe(error: BaseException) -> str:
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"TLS: the server's certificate is not trusted or does not name this host ({error.verify_message})"
    if isinstance(error, ssl.SSLError):
        return f"TLS: {error}"
    if isinstance(error, socket.timeout):
        return "no answer in time"
    return str(error) or type(error).__name__


class Transport:
    """Sends requests to the nodes of one AX cluster with a bearer token.

    Requests go to one node until it stops answering — no connection, a timeout, or 502/503/504 — and then to the
    next, where they stay: leases and runs live in the database, so any node serves any request.
    """

    def __init__(
        self,
        servers: Sequence[str],
        token: str,
        *,
        ca: Optional[str] = None,
        ssl_context: Optional[ssl.SSLContext] = None,
        user_agent: str = USER_AGENT,
    ) -> None:
        if not servers:
            raise ValueError("server is required (the AX server's URL, e.g. http://ax:7070)")
        if not token or not token.strip():
            raise ValueError("token is required")
        self._bases: List[urllib.parse.SplitResult] = []
        for server in servers:
            parts = urllib.parse.urlsplit(server)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"server must be an http or https URL, was {server!r}")
            self._bases.append(parts)
        self._token = token
        self._user_agent = user_agent
        needs_tls = any(b.scheme == "https" for b in self._bases)
        self._tls = ssl_context if ssl_context is not None else (tls_context(ca) if needs_tls or ca else None)
        self._current = 0

    @property
    def servers(self) -> List[str]:
        return [urllib.parse.urlunsplit(b) for b in self._bases]

    def request(
        self,
        method: str,
        path: str,
        body: Optional[bytes] = None,
        *,
        timeout: float,
        headers: Optional[Dict[str, str]] = None,
        accept: str = "application/json",
        abort: Optional[Abort] = None,
    ) -> Response:
        """Sends the request to the current node, and to the next ones in turn while a node does not answer.

        Raises :class:`Unanswered` when no node answered (its status is that of the last gateway error, or 0); any
        answer, whatever its status, is returned.
        """
        first = self._current
        last: Optional[Unanswered] = None
        for i in range(len(self._bases)):
            at = (first + i) % len(self._bases)
            try:
                response = self._send(self._bases[at], method, path, body, timeout, headers or {}, accept, abort)
            except Unanswered as e:
                last = e
                if abort is not None and abort.aborted:
                    break
                continue
            if response.status in GATEWAY_STATUSES:
                last = Unanswered(
                    f"{self._name(self._bases[at])} answered {response.error_message()} to {method} {path}",
                    response.status,
                )
                continue
            self._current = at
            return response
        assert last is not None
        raise last

    def _send(
        self,
        base: urllib.parse.SplitResult,
        method: str,
        path: str,
        body: Optional[bytes],
        timeout: float,
        headers: Dict[str, str],
        accept: str,
        abort: Optional[Abort],
    ) -> Response:
        if base.scheme == "https":
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                base.hostname, base.port, timeout=timeout, context=self._tls
            )
        else:
            conn = http.client.HTTPConnection(base.hostname, base.port, timeout=timeout)
        all_headers = {
            "Authorization": f"Bearer {self._token}",
            "Accept": accept,
            "User-Agent": self._user_agent,
            "Connection": "close",
        }
        if body is not None:
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers)
        url = base.path.rstrip("/") + path
        try:
            if abort is not None and not abort.attach(conn):
                raise Unanswered(f"{method} {path} not sent: closing")
            try:
                conn.connect()
                if abort is not None:
                    abort.connected()
                conn.request(method, url, body=body, headers=all_headers)
                answer = conn.getresponse()
                return Response(answer.status, answer.read())
            finally:
                if abort is not None:
                    abort.detach()
        except (OSError, http.client.HTTPException) as e:
            raise Unanswered(f"cannot reach the AX server at {self._name(base)}: {_describe(e)}") from e
        finally:
            conn.close()

    @staticmethod
    def _name(base: urllib.parse.SplitResult) -> str:
        return urllib.parse.urlunsplit((base.scheme, base.netloc, base.path, "", ""))


def check_status(response: Response, what: str, ok: Iterable[int] = ()) -> None:
    """Raises a :class:`ChannelError` for a status outside 2xx and ``ok``."""
    if 200 <= response.status < 300 or response.status in ok:
        return
    raise ChannelError(f"{what}: {response.error_message()}", response.status)
