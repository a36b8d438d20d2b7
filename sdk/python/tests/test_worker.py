"""The worker against a real server over real HTTP: what a handler sees, and every way a run ends."""

from __future__ import annotations

import datetime
import logging
import os
import threading
import time
from typing import Any, Dict, List

import pytest

from ax_sdk import AuthError, Cancelled, Context, NonRetryableError, NotApproved, Unanswered, Worker
from conftest import Ax, eventually


def test_an_event_trigger_runs_the_handler_to_success_with_its_context_and_log(ax: Ax, name: str, make_worker):
    seen: Dict[str, Any] = {}

    def sync_orders(ctx: Context) -> str:
        seen.update(
            request_id=ctx.request_id, instance_id=ctx.instance_id, attempt=ctx.attempt, task=ctx.task_name,
            params=dict(ctx.params), since=ctx.param("since"), missing=ctx.param("nope", "dflt"),
            shard=(ctx.shard_index, ctx.shard_total), scheduled_at=ctx.scheduled_at, cancelled=ctx.cancelled,
            handler=ctx.handler,
        )
        print("syncing orders since", ctx.param("since"))
        ctx.log("line one\nline two")
        ctx.progress(50, "half way")
        logging.getLogger("orders").warning("3 orders look odd")
        print("to stderr", file=__import__("sys").stderr)
        return "synced 3 orders"

    make_worker(name, {"syncOrders": sync_orders})
    ax.sdk_task(name, "syncOrders", name)

    run_id = ax.client.trigger_event(name, {"since": "2024-05-01", "limit": 10})

    run = ax.await_state(run_id, "SUCCESS")
    assert run["message"] == "synced 3 orders"
    assert run["executorId"] == f"{name}-w1"
    assert run["pid"] == os.getpid()
    assert run["attempt"] == 1
    assert ax.client.log(run_id) == (
        "syncing orders since 2024-05-01\n"
        "line one\n"
        "line two\n"
        "[progress] 50% half way\n"
        "WARNING orders: 3 orders look odd\n"
        "to stderr\n"
    )
    assert seen["request_id"] == f"ax-{run_id}"
    assert seen["instance_id"] == run_id and seen["attempt"] == 1 and seen["task"] == name
    assert seen["params"] == {"since": "2024-05-01", "limit": 10}
    assert seen["since"] == "2024-05-01" and seen["missing"] == "dflt"
    assert seen["shard"] == (0, 1)
    assert seen["handler"] == "syncOrders"
    assert seen["cancelled"] is False
    assert isinstance(seen["scheduled_at"], datetime.datetime) and seen["scheduled_at"].tzinfo is not None
    assert ax.event_types(run_id)[-3:] == ["CLAIMED", "STARTED", "SUCCEEDED"]


def test_a_raising_handler_is_retried_then_fails_with_its_traceback_in_the_log(ax: Ax, name: str, make_worker):
    def charge(ctx: Context) -> None:
        amount = int(ctx.param("amount"))
        raise ValueError(f"card declined for {amount} (attempt {ctx.attempt})")

    make_worker(name, {"charge": charge})
    ax.sdk_task(name, "charge", name, {"maxRetries": 1, "retryIntervalSeconds": 0})

    run_id = ax.client.trigger(name, {"amount": 42})

    run = ax.await_state(run_id, "FAILED")
    assert run["attempt"] == 2
    assert run["failureKind"] == "EXIT_CODE"
    assert run["message"] == "failed: ValueError: card declined for 42 (attempt 2)"
    log = ax.client.log(run_id)
    assert "[ax] handler 'charge' failed:" in log
    assert "Traceback (most recent call last):" in log
    assert 'raise ValueError(f"card declined for {amount} (attempt {ctx.attempt})")' in log
    assert "ValueError: card declined for 42 (attempt 1)" in log
    assert "ValueError: card declined for 42 (attempt 2)" in log
    types = ax.event_types(run_id)
    assert "RETRY_SCHEDULED" in types and types[-1] == "FAILED"


def test_a_non_retryable_error_fails_the_run_without_another_attempt(ax: Ax, name: str, make_worker):
    def refund(ctx: Context) -> None:
        raise NonRetryableError("order 7 was never paid")

    make_worker(name, {"refund": refund})
    ax.sdk_task(name, "refund", name, {"maxRetries": 3, "retryIntervalSeconds": 0})

    run = ax.await_state(ax.client.trigger(name), "FAILED")

    assert run["attempt"] == 1
    assert run["failureKind"] == "FATAL"
    assert run["message"].endswith("NonRetryableError: order 7 was never paid")


@pytest.mark.parametrize("style", ["busy loop (stopped by the exception)", "ctx.sleep (told, no exception)"])
def test_the_timeout_stops_the_handler_and_fails_the_run_as_timeout(ax: Ax, name: str, make_worker, style: str):
    ended = threading.Event()
    caught: List[BaseException] = []
    by_exception = style.startswith("busy")

    def crunch(ctx: Context) -> str:
        print("crunching")
        try:
            if by_exception:
                while True:  # pure Python work that never looks at the context
                    time.sleep(0.01)
            else:
                ctx.sleep(60)
            return "never"
        except Cancelled as e:
            caught.append(e)
            raise
        finally:
            ended.set()

    make_worker(name, {"crunch": crunch}, stop_with_exception=by_exception)
    ax.sdk_task(name, "crunch", name, {"timeoutSeconds": 1})

    run = ax.await_state(ax.client.trigger(name), "FAILED")

    assert run["failureKind"] == "TIMEOUT"
    assert "handler 'crunch' ran longer than the timeout of 1 s and was stopped" in run["message"]
    assert ended.wait(5), "the handler was not stopped"
    assert caught and isinstance(caught[0], Cancelled)


def test_terminate_stops_the_handler_and_nothing_more_is_reported(ax: Ax, name: str, make_worker):
    ended = threading.Event()

    def export(ctx: Context) -> str:
        print("exporting")
        try:
            ctx.sleep(60)
            return "exported"
        finally:
            ended.set()

    worker = make_worker(name, {"export": export})
    ax.sdk_task(name, "export", name)
    run_id = ax.client.trigger(name)
    eventually(lambda: "exporting" in ax.client.log(run_id), what="the handler started")

    ax.client.terminate(run_id, "not needed")

    assert ended.wait(10), "the handler was not stopped"
    eventually(lambda: not worker.active_runs, what="the worker let go of the run")
    run = ax.client.run(run_id)
    assert run["state"] == "TERMINATED"
    assert "REPORT_REFUSED" not in ax.event_types(run_id)


def test_an_unknown_handler_fails_the_run_at_once_naming_the_handlers_there_are(ax: Ax, name: str, make_worker):
    make_worker(name, {"a": lambda ctx: None, "b": lambda: None})
    ax.sdk_task(name, "nope", name, {"maxRetries": 2, "retryIntervalSeconds": 0})

    run = ax.await_state(ax.client.trigger(name), "FAILED")

    assert run["failureKind"] == "START_ERROR"
    assert run["attempt"] == 1
    assert "no handler 'nope' registered in this worker (handlers: a, b)" in run["message"]


def test_a_shell_task_aimed_at_the_workers_group_fails_as_unsupported(ax: Ax, name: str, make_worker):
    make_worker(name, {"a": lambda ctx: None})
    ax.client.apply({"taskName": name, "trigger": {"type": "event"},
                     "action": {"type": "shell", "command": "echo hi", "group": name}})

    run = ax.await_state(ax.client.trigger(name), "FAILED")

    assert run["failureKind"] == "START_ERROR"
    assert "action type shell is not supported by this executor" in run["message"]


def test_a_handler_without_arguments_runs_too(ax: Ax, name: str, make_worker):
    make_worker(name, {"ping": lambda: "pong"})
    ax.sdk_task(name, "ping", name)

    assert ax.await_state(ax.client.trigger(name), "SUCCESS")["message"] == "pong"


def test_a_handler_waits_for_approval_mid_run_and_goes_on_when_approved(ax: Ax, name: str, make_worker):
    def purge(ctx: Context) -> str:
        print("found 5 stale rows")
        ctx.request_approval("delete 5 stale rows?")
        print("deleting")
        return "deleted 5 rows"

    make_worker(name, {"purge": purge})
    ax.sdk_task(name, "purge", name)
    run_id = ax.client.trigger(name)
    ax.await_state(run_id, "WAITING_APPROVAL")

    ax.client.approve(run_id, "go ahead")

    run = ax.await_state(run_id, "SUCCESS")
    assert run["message"] == "deleted 5 rows"
    assert ax.client.log(run_id) == (
        "found 5 stale rows\n[ax] waiting for approval: delete 5 stale rows?\n[ax] approved; going on\ndeleting\n"
    )


def test_a_rejected_approval_stops_the_handler(ax: Ax, name: str, make_worker):
    outcome: List[BaseException] = []

    def purge(ctx: Context) -> str:
        try:
            ctx.request_approval("delete everything?")
        except NotApproved as e:
            outcome.append(e)
            raise
        return "deleted everything"

    worker = make_worker(name, {"purge": purge})
    ax.sdk_task(name, "purge", name)
    run_id = ax.client.trigger(name)
    ax.await_state(run_id, "WAITING_APPROVAL")

    ax.client.reject(run_id, "no way")

    eventually(lambda: outcome, what="the handler learnt the rejection")
    assert "approval not given: the run is CANCELED" in str(outcome[0])
    eventually(lambda: not worker.active_runs, what="the worker let go of the run")
    assert ax.state(run_id) == "CANCELED"


def test_runs_up_to_the_concurrency_at_the_same_time(ax: Ax, name: str, make_worker):
    lock = threading.Lock()
    now = {"running": 0, "most": 0}

    def work(ctx: Context) -> None:
        with lock:
            now["running"] += 1
            now["most"] = max(now["most"], now["running"])
        time.sleep(0.4)
        with lock:
            now["running"] -= 1

    make_worker(name, {"work": work}, concurrency=2)
    ax.sdk_task(name, "work", name, {"maxConcurrency": 10})

    ids = [ax.client.trigger(name) for _ in range(5)]

    for run_id in ids:
        ax.await_state(run_id, "SUCCESS")
    assert now["most"] == 2


def test_a_sharded_run_gives_each_shard_its_index_and_request_id(ax: Ax, name: str, make_worker):
    seen: List[tuple] = []

    def part(ctx: Context) -> str:
        seen.append((ctx.shard_index, ctx.shard_total, ctx.request_id, ctx.run_ref.shard))
        print(f"shard {ctx.shard_index} of {ctx.shard_total}")
        return f"part {ctx.shard_index}"

    make_worker(name, {"part": part}, concurrency=2)
    ax.sdk_task(name, "part", name, {"sharding": {"shards": 2}})

    run_id = ax.client.trigger(name)

    ax.await_state(run_id, "SUCCESS", timeout=30)
    assert sorted(seen) == [(0, 2, f"ax-{run_id}:shard-0", 0), (1, 2, f"ax-{run_id}:shard-1", 1)]


def test_a_completion_that_cannot_be_delivered_is_sent_again_until_it_arrives(ax: Ax, name: str, make_worker):
    worker = make_worker(name, {"bill": lambda ctx: "billed"})
    lost = _lose(worker, "complete", times=2)
    ax.sdk_task(name, "bill", name)

    run = ax.await_state(ax.client.trigger(name), "SUCCESS")

    assert run["attempt"] == 1 and run["message"] == "billed"
    assert lost == ["complete", "complete"]


def test_a_completion_whose_answer_was_lost_is_sent_again_and_the_server_keeps_the_first(
    ax: Ax, name: str, make_worker
):
    worker = make_worker(name, {"bill": lambda ctx: "billed"})
    lost = _lose(worker, "complete", times=1, after_sending=True)
    ax.sdk_task(name, "bill", name)
    run_id = ax.client.trigger(name)

    run = ax.await_state(run_id, "SUCCESS")
    eventually(lambda: not worker.active_runs, what="the worker let go of the run")

    assert run["attempt"] == 1 and run["message"] == "billed"
    assert lost == ["complete"]
    # The second copy found the run over: refused (409), on record, and dropped by the worker.
    assert ax.event_types(run_id)[-1] == "REPORT_REFUSED"


def test_a_wrong_token_fails_the_start_at_once(ax: Ax, name: str):
    worker = Worker(ax.url, "not-a-token", name)
    worker.handler("a", lambda ctx: None)
    with pytest.raises(AuthError) as refused:
        worker.start()
    assert refused.value.status == 401
    assert not worker.running


def test_an_unreachable_server_fails_the_start_at_once_unless_fail_fast_is_off(name: str):
    worker = Worker("http://127.0.0.1:9", "token", name)
    worker.handler("a", lambda ctx: None)
    with pytest.raises(Unanswered, match="cannot reach the AX server at http://127.0.0.1:9"):
        worker.start()

    patient = Worker("http://127.0.0.1:9", "token", name, fail_fast=False, poll_wait=1.0)
    patient.handler("a", lambda ctx: None)
    patient.start()
    assert patient.running
    patient.close()
    assert patient.error_count == 0


def test_a_worker_without_handlers_or_groups_is_refused():
    with pytest.raises(ValueError, match="groups"):
        Worker("http://ax:7070", "t", [])
    worker = Worker("http://ax:7070", "t", "g")
    with pytest.raises(ValueError, match="at least one handler"):
        worker.start()
    worker.handler("a", lambda ctx: None)
    with pytest.raises(ValueError, match="more than one handler named 'a'"):
        worker.handler("a", lambda ctx: None)
    with pytest.raises(ValueError, match="http or https"):
        Worker("ftp://ax", "t", "g")


def _lose(worker: Worker, call: str, times: int, after_sending: bool = False) -> List[str]:
    """Makes the next ``times`` requests of ``call`` go unanswered: never sent, or (``after_sending``) sent and
    taken by the server, their answer lost on the way back."""
    transport = worker.channel._transport
    real = transport.request
    lost: List[str] = []

    def request(method: str, path: str, *args: Any, **kwargs: Any):
        if path.endswith("/" + call) and len(lost) < times:
            lost.append(call)
            if after_sending:
                real(method, path, *args, **kwargs)
            raise Unanswered(f"{call}: the answer was lost (test)")
        return real(method, path, *args, **kwargs)

    transport.request = request
    return lost
