"""Exactly once with your own database: a run's request id is recorded in the same transaction as its work.

AX delivers a run until one attempt reports success; it cannot know whether the work of an attempt whose report was
lost happened. When the work writes to your database, record the request id in the same transaction::

    with ctx.once(conn):                 # conn: a DB-API connection (sqlite3, psycopg, psycopg2, …)
        conn.execute("INSERT INTO orders (request_id, amount) VALUES (?, ?)", (ctx.request_id, 42))
    # committed: the orders row and the request id together

``__enter__`` inserts the request id into ``ax_idempotency`` (the primary key is the lock: an overlapping attempt
with the same id waits for this transaction); the block does the work on the same connection; ``__exit__`` stores
the result (``once.result``, if the block set it) and commits — or, when the block raised, rolls back and the next
attempt does the work. If the request id is already recorded (an earlier attempt committed), ``__enter__`` rolls
back and raises :class:`AlreadyDone`: the block does not run. A handler needs nothing more — the worker ends the
run as a success with the recorded result — and code outside a worker catches it.

The table is the Java SDK's (one table serves handlers in both languages); :func:`create_table` creates it::

    CREATE TABLE IF NOT EXISTS ax_idempotency (
        request_id VARCHAR(200) PRIMARY KEY,
        result     TEXT,
        created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
    )
"""

from __future__ import annotations

import sys
from typing import Any, Callable, List, NamedTuple, Optional, Type

TABLE = "ax_idempotency"
MAX_REQUEST_ID_LENGTH = 200

DDL = """CREATE TABLE IF NOT EXISTS ax_idempotency (
    request_id VARCHAR(200) PRIMARY KEY,
    result     TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
)"""

class Recorded(NamedTuple):
    """A request id whose work committed: its result and when it was recorded (as the driver returns it)."""

    request_id: str
    result: Optional[str]
    created_at: Any


class AlreadyDone(BaseException):
    """The work of this request id was committed before: it is not done again.

    Raised by :meth:`Once.__enter__`. It derives from ``BaseException`` so that ``except Exception`` around the
    block does not catch it; a handler lets it pass and the worker reports the run as a success whose message is
    the recorded ``result``.
    """

    def __init__(self, recorded: Recorded) -> None:
        super().__init__(f"request {recorded.request_id} was already done (recorded {recorded.created_at})")
        self.recorded = recorded

    @property
    def request_id(self) -> str:
        return self.recorded.request_id

    @property
    def result(self) -> Optional[str]:
        return self.recorded.result


def create_table(conn: Any) -> None:
    """Creates ``ax_idempotency`` if it does not exist, and commits (SQLite and PostgreSQL; for other databases
    adapt :data:`DDL`). Handy for tests and examples; in production, create it with your migrations."""
    cur = conn.cursor()
    try:
        cur.execute(DDL)
    finally:
        cur.close()
    conn.commit()


def find(conn: Any, request_id: str, paramstyle: Optional[str] = None) -> Optional[Recorded]:
    """The record of a request id, if its work committed (read in the connection's current transaction)."""
    _check(request_id)
    (p,) = _marks(conn, paramstyle, 1)
    cur = conn.cursor()
    try:
        cur.execute(f"SELECT result, created_at FROM {TABLE} WHERE request_id = {p}", _args(conn, paramstyle, request_id))
        row = cur.fetchone()
    finally:
        cur.close()
    return None if row is None else Recorded(request_id, row[0], row[1])


class Once:
    """The context manager :func:`once` returns. Set :attr:`result` inside the block to record a result."""

    def __init__(
        self,
        conn: Any,
        request_id: str,
        *,
        commit: bool = True,
        paramstyle: Optional[str] = None,
        on_replay: Optional[Callable[[Recorded], None]] = None,
    ) -> None:
        _check(request_id)
        if _autocommit(conn):
            raise ValueError(
                "once() needs a connection in a transaction, not in autocommit mode: the request id and the work "
                "must commit together"
            )
        self.conn = conn
        self.request_id = request_id
        self.commit = commit
        #: Recorded with the request id when the block ends; the result a replay hands back.
        self.result: Optional[str] = None
        self._paramstyle = paramstyle
        self._on_replay = on_replay

    def __enter__(self) -> "Once":
        (p,) = _marks(self.conn, self._paramstyle, 1)
        cur = self.conn.cursor()
        try:
            cur.execute(f"INSERT INTO {TABLE} (request_id) VALUES ({p})", _args(self.conn, self._paramstyle, self.request_id))
        except Exception as e:
            if not _is_unique_violation(e):
                if self.commit:  # no block runs, so no __exit__: leave no failed transaction behind
                    _rollback_quietly(self.conn)
                raise
            duplicate = True
        else:
            duplicate = False
        finally:
            cur.close()
        if not duplicate:
            return self
        # An earlier transaction committed this request id (PostgreSQL has aborted ours anyway).
        self.conn.rollback()
        recorded = find(self.conn, self.request_id, self._paramstyle)
        if self.commit:
            self.conn.rollback()  # ends the read's transaction
        if recorded is None:
            raise RuntimeError(
                f"request id {self.request_id} is being processed by another transaction that has not "
                "committed yet; try again later"
            )
        if self._on_replay is not None:
            self._on_replay(recorded)
        raise AlreadyDone(recorded)

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Any) -> bool:
        if exc_type is not None:
            if self.commit:
                self.conn.rollback()
            return False
        if self.result is not None:
            p, q = _marks(self.conn, self._paramstyle, 2)
            cur = self.conn.cursor()
            try:
                cur.execute(
                    f"UPDATE {TABLE} SET result = {p} WHERE request_id = {q}",
                    _args(self.conn, self._paramstyle, str(self.result), self.request_id),
                )
            finally:
                cur.close()
        if self.commit:
            self.conn.commit()
        return False


def once(
    conn: Any,
    request_id: str,
    *,
    commit: bool = True,
    paramstyle: Optional[str] = None,
    on_replay: Optional[Callable[[Recorded], None]] = None,
) -> Once:
    """Marks ``request_id`` done in ``conn``'s transaction together with the work of the ``with`` block.

    ``commit=False`` leaves the transaction to the caller (who must commit it, or roll it back when the block
    raises); a replay still rolls back, as the request id cannot be recorded twice. ``paramstyle`` is the driver
    module's DB-API ``paramstyle`` unless given. See the module's comment.
    """
    return Once(conn, request_id, commit=commit, paramstyle=paramstyle, on_replay=on_replay)


def run_once(
    conn: Any,
    request_id: str,
    work: Callable[[Any], Any],
    *,
    on_replay: Optional[Callable[[Recorded], None]] = None,
) -> Optional[str]:
    """Runs ``work(conn)`` once for ``request_id`` and commits it with the request id and its result (as text); if
    the request id was recorded before, returns the recorded result without running ``work``. The Java SDK's
    ``runOnce``."""
    try:
        with Once(conn, request_id, on_replay=on_replay) as done:
            value = work(conn)
            done.result = None if value is None else str(value)
        return done.result
    except AlreadyDone as replay:
        return replay.result


# ------------------------------------------------------------------------------------------------ DB-API details


def _check(request_id: str) -> None:
    if not request_id or not str(request_id).strip():
        raise ValueError("request_id is required")
    if len(request_id) > MAX_REQUEST_ID_LENGTH:
        raise ValueError(f"request_id is longer than {MAX_REQUEST_ID_LENGTH} characters: {request_id[:40]}…")


def _module(conn: Any) -> Any:
    return sys.modules.get(type(conn).__module__.split(".")[0])


def _paramstyle(conn: Any, given: Optional[str]) -> str:
    style = given or getattr(_module(conn), "paramstyle", None) or "qmark"
    if style not in ("qmark", "format", "pyformat", "numeric", "named"):
        raise ValueError(f"unsupported DB-API paramstyle {style!r}")
    return style


def _marks(conn: Any, given: Optional[str], n: int) -> List[str]:
    """``n`` parameter markers in the driver's style."""
    style = _paramstyle(conn, given)
    if style == "qmark":
        return ["?"] * n
    if style in ("format", "pyformat"):
        return ["%s"] * n
    if style == "numeric":
        return [f":{i + 1}" for i in range(n)]
    return [f":v{i + 1}" for i in range(n)]


def _args(conn: Any, given: Optional[str], *values: str) -> Any:
    if _paramstyle(conn, given) == "named":
        return {f"v{i + 1}": value for i, value in enumerate(values)}
    return tuple(values)


def _autocommit(conn: Any) -> bool:
    """Whether statements commit one by one: psycopg's/psycopg2's ``autocommit``, sqlite3's (3.12+) ``autocommit``
    or its legacy ``isolation_level = None``."""
    value = getattr(conn, "autocommit", None)
    if value is True:
        return True
    if _module(conn) is not None and getattr(_module(conn), "__name__", "") == "sqlite3":
        if value is False:
            return False
        return getattr(conn, "isolation_level", "") is None
    return False


def _rollback_quietly(conn: Any) -> None:
    try:
        conn.rollback()
    except Exception:  # the original error is the one to report
        pass


def _is_unique_violation(error: BaseException) -> bool:
    """A DB-API ``IntegrityError`` (SQLSTATE class 23); the request id is never null, so it is the primary key."""
    sqlstate = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
    if isinstance(sqlstate, str) and sqlstate:
        return sqlstate.startswith("23")
    return any(cls.__name__ == "IntegrityError" for cls in type(error).__mro__)
