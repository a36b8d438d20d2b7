"""``once``: a run's request id and its work commit together, on SQLite and (when psycopg is installed and a server
is there) on PostgreSQL; and the lost-report case end to end: the work committed, the report was lost, AX delivered
the run again, and the work was not done twice."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import urllib.parse
import uuid
from pathlib import Path
from typing import Any, Callable, Iterator, List

import pytest

import ax_sdk
from ax_sdk import AlreadyDone, Context, create_table, once, run_once
from ax_sdk._http import Response
from ax_sdk.idempotency import find
from conftest import Ax


class Db:
    """Connections to one database, and its SQL dialect's parameter marker."""

    def __init__(self, kind: str, connect: Callable[[], Any], marker: str) -> None:
        self.kind = kind
        self.connect = connect
        self.marker = marker

    def sql(self, text: str) -> str:
        return text.replace("?", self.marker)

    def execute(self, conn: Any, text: str, *params: Any) -> Any:
        cur = conn.cursor()
        cur.execute(self.sql(text), params)
        return cur

    def count(self, table: str) -> int:
        conn = self.connect()
        try:
            return self.execute(conn, f"SELECT count(*) FROM {table}").fetchone()[0]
        finally:
            conn.close()


def _postgres_dsn() -> dict:
    """psycopg's connection arguments from AX_TEST_PG_URL (the JDBC URL the Java tests use)."""
    url = os.environ.get("AX_TEST_PG_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres")
    parts = urllib.parse.urlsplit(url[len("jdbc:"):] if url.startswith("jdbc:") else url)
    query = dict(urllib.parse.parse_qsl(parts.query))
    args = {"host": parts.hostname or "127.0.0.1", "port": parts.port or 5432, "dbname": parts.path.lstrip("/")}
    args.update({k: v for k, v in query.items() if k in ("user", "password")})
    return args


@pytest.fixture(scope="session")
def postgres_schema() -> Iterator[dict]:
    try:
        import psycopg
    except ImportError:
        pytest.skip("psycopg is not installed (Debian: apt-get install python3-psycopg): once() on PostgreSQL untested")
    dsn = _postgres_dsn()
    try:
        admin = psycopg.connect(**dsn, autocommit=True, connect_timeout=5)
    except psycopg.Error as e:
        pytest.skip(f"no PostgreSQL at {dsn['host']}:{dsn['port']}/{dsn['dbname']} (AX_TEST_PG_URL): {e}")
    schema = f"ax_py_{uuid.uuid4().hex[:12]}"
    admin.execute(f"CREATE SCHEMA {schema}")
    try:
        yield dict(dsn, options=f"-c search_path={schema}")
    finally:
        admin.execute(f"DROP SCHEMA {schema} CASCADE")
        admin.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Db:
    if request.param == "sqlite":
        path = tmp_path / "shop.db"
        database = Db("sqlite", lambda: sqlite3.connect(path, timeout=10), "?")
    else:
        dsn = request.getfixturevalue("postgres_schema")  # skips, saying why, without psycopg or a server
        import psycopg

        database = Db("postgresql", lambda: psycopg.connect(**dsn), "%s")
    conn = database.connect()
    create_table(conn)
    create_table(conn)  # IF NOT EXISTS: twice is fine
    database.execute(conn, "CREATE TABLE IF NOT EXISTS orders (request_id VARCHAR(200), amount INT)")
    database.execute(conn, "DELETE FROM orders")
    conn.commit()
    conn.close()
    return database


def _place_order(db: Db, conn: Any, request_id: str, amount: int) -> None:
    db.execute(conn, "INSERT INTO orders (request_id, amount) VALUES (?, ?)", request_id, amount)


def test_the_work_and_the_request_id_commit_together_and_a_replay_skips_the_work(db: Db):
    request_id = f"ax-{uuid.uuid4()}"
    conn = db.connect()
    with once(conn, request_id) as done:
        _place_order(db, conn, request_id, 42)
        done.result = "order placed"
    conn.close()

    again = db.connect()
    with pytest.raises(AlreadyDone) as replay:
        with once(again, request_id):
            _place_order(db, again, request_id, 42)
    again.close()

    assert replay.value.result == "order placed"
    assert replay.value.request_id == request_id
    assert replay.value.recorded.created_at is not None
    assert db.count("orders") == 1
    check = db.connect()
    assert find(check, request_id).result == "order placed"
    check.close()


def test_a_failing_block_rolls_back_and_records_nothing_so_the_next_attempt_does_the_work(db: Db):
    request_id = f"ax-{uuid.uuid4()}"
    conn = db.connect()
    with pytest.raises(RuntimeError, match="payment service down"):
        with once(conn, request_id):
            _place_order(db, conn, request_id, 42)
            raise RuntimeError("payment service down")
    assert find(conn, request_id) is None
    assert run_once(conn, request_id, lambda c: _place_order(db, c, request_id, 42) or "placed") == "placed"
    conn.close()

    assert db.count("orders") == 1


def test_run_once_returns_the_recorded_result_without_running_the_work_again(db: Db):
    request_id = f"ax-{uuid.uuid4()}"
    calls: List[str] = []
    replays: List[Any] = []

    def work(conn: Any) -> int:
        calls.append("work")
        _place_order(db, conn, request_id, 7)
        return 7

    conn = db.connect()
    assert run_once(conn, request_id, work) == "7"
    assert run_once(conn, request_id, work, on_replay=replays.append) == "7"
    conn.close()

    assert calls == ["work"]
    assert [r.result for r in replays] == ["7"]
    assert db.count("orders") == 1


def test_overlapping_attempts_serialise_on_the_request_id_and_the_second_replays(db: Db):
    request_id = f"ax-{uuid.uuid4()}"
    first_inside = threading.Event()
    let_first_commit = threading.Event()
    outcomes: List[str] = []

    def attempt(label: str, hold: bool) -> None:
        conn = db.connect()
        try:
            with once(conn, request_id) as done:
                if hold:
                    first_inside.set()
                    let_first_commit.wait(10)
                _place_order(db, conn, request_id, 1)
                done.result = f"done by {label}"
            outcomes.append(f"{label} did the work")
        except AlreadyDone as replay:
            outcomes.append(f"{label} replayed '{replay.result}'")
        finally:
            conn.close()

    first = threading.Thread(target=attempt, args=("first", True))
    first.start()
    assert first_inside.wait(10)
    second = threading.Thread(target=attempt, args=("second", False))
    second.start()
    second.join(0.5)
    assert second.is_alive(), "the second attempt waits for the first one's transaction"
    let_first_commit.set()
    first.join(10)
    second.join(10)

    assert outcomes == ["first did the work", "second replayed 'done by first'"]
    assert db.count("orders") == 1


def test_commit_false_leaves_the_transaction_to_the_caller(db: Db):
    request_id = f"ax-{uuid.uuid4()}"
    conn = db.connect()
    with once(conn, request_id, commit=False):
        _place_order(db, conn, request_id, 3)
    conn.rollback()  # the caller changes its mind: nothing was recorded
    assert find(conn, request_id) is None
    with once(conn, request_id, commit=False):
        _place_order(db, conn, request_id, 3)
    conn.commit()
    conn.close()

    assert db.count("orders") == 1


def test_an_autocommit_connection_is_refused(db: Db, tmp_path: Path):
    conn = db.connect()
    if db.kind == "sqlite":
        conn.isolation_level = None
    else:
        conn.autocommit = True
    with pytest.raises(ValueError, match="autocommit"):
        once(conn, "ax-1")
    conn.close()


def test_a_missing_table_fails_the_block_and_leaves_no_transaction_open(db: Db):
    conn = db.connect()
    db.execute(conn, "DROP TABLE ax_idempotency")
    conn.commit()
    try:
        with pytest.raises(Exception, match="ax_idempotency"):
            with once(conn, "ax-1"):
                pytest.fail("the block must not run")
        db.execute(conn, "SELECT count(*) FROM orders").fetchone()  # the connection is usable
    finally:
        create_table(conn)
        conn.close()


def test_a_request_id_must_fit_the_table():
    conn = sqlite3.connect(":memory:")
    with pytest.raises(ValueError, match="longer than 200"):
        once(conn, "x" * 201)
    with pytest.raises(ValueError, match="required"):
        once(conn, " ")


def test_a_redelivered_run_whose_work_committed_is_not_done_again(ax: Ax, name: str, make_worker, db: Db):
    """The Java SDK's LostReportTest: attempt 1 commits its work, its completion never reaches the server, the lease
    expires, AX delivers attempt 2 — which finds the request id recorded and does not place the order again."""
    results: List[str] = []

    def place_order(ctx: Context) -> str:
        conn = db.connect()
        try:
            with ctx.once(conn) as done:
                _place_order(db, conn, ctx.request_id, int(ctx.param("amount")))
                done.result = f"order for {ctx.param('amount')}"
            results.append(f"{ctx.attempt}: did the work")
            return done.result
        except AlreadyDone:
            results.append(f"{ctx.attempt}: replayed")
            raise  # the worker reports the recorded result
        finally:
            conn.close()

    worker = make_worker(name, {"placeOrder": place_order})
    dropped = _swallow_first_completion(worker)
    ax.sdk_task(name, "placeOrder", name, {"maxRetries": 2, "retryIntervalSeconds": 0})

    run_id = ax.client.trigger(name, {"amount": 42})

    run = ax.await_state(run_id, "SUCCESS", timeout=30)
    assert dropped == [f"ax-{run_id}"], "attempt 1 succeeded and its report was lost"
    assert run["attempt"] == 2, "re-delivered after the lease expired"
    assert run["message"] == "order for 42"
    assert results == ["1: did the work", "2: replayed"]
    assert f"[ax] request ax-{run_id} was already done" in ax.client.log(run_id)
    types = ax.event_types(run_id)
    assert types.index("EXECUTOR_LOST") < len(types) - 1 and types[-1] == "SUCCEEDED"
    assert db.count("orders") == 1, "the order was placed exactly once"


def _swallow_first_completion(worker: ax_sdk.Worker) -> List[str]:
    """The first completion never reaches the server, but the worker thinks it did."""
    transport = worker.channel._transport
    real = transport.request
    dropped: List[str] = []

    def request(method: str, path: str, body: Any = None, **kwargs: Any) -> Response:
        if path.endswith("/complete") and not dropped:
            run = json.loads(body)["run"]
            dropped.append(f"ax-{run['instanceId']}")
            return Response(200, b'{"accepted":true,"reason":null}')
        return real(method, path, body, **kwargs)

    transport.request = request
    return dropped
