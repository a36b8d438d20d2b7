"""Workers in processes of their own: killed, signalled, and the example worker."""

from __future__ import annotations

import signal
import subprocess
import sys

from ax_sdk import Context
from conftest import SDK, Ax, eventually

HERE = SDK / "tests"


def test_a_killed_workers_run_is_retried_on_another_worker(ax: Ax, name: str, spawn, make_worker):
    ax.sdk_task(name, "block", name, {"maxRetries": 1, "retryIntervalSeconds": 0})
    doomed = spawn(str(HERE / "worker_proc.py"), ax.url, ax.executor_token, name, f"{name}-doomed")
    eventually(lambda: f"{name}-doomed registered" in doomed.log_path.read_text(), what="the first worker registered")
    run_id = ax.client.trigger(name)
    eventually(lambda: "started on" in ax.client.log(run_id), what="the first worker started the run")
    assert ax.client.run(run_id)["executorId"] == f"{name}-doomed"

    doomed.kill()  # SIGKILL: no goodbye, its lease just stops being renewed
    doomed.wait()

    def finish(ctx: Context) -> str:
        print(f"finished by the second worker, attempt {ctx.attempt}")
        return "done elsewhere"

    make_worker(name, {"block": finish})
    run = ax.await_state(run_id, "SUCCESS")
    assert run["attempt"] == 2
    assert run["executorId"] == f"{name}-w1"
    assert "EXECUTOR_LOST" in ax.event_types(run_id)
    log = ax.client.log(run_id)
    assert "started on run" in log and "finished by the second worker, attempt 2" in log


def test_sigterm_lets_the_running_handler_finish_and_report_then_exits(ax: Ax, name: str, spawn):
    ax.sdk_task(name, "slow", name)
    worker = spawn(str(HERE / "worker_proc.py"), ax.url, ax.executor_token, name, f"{name}-p")
    eventually(lambda: f"{name}-p registered" in worker.log_path.read_text(), what="the worker registered")
    run_id = ax.client.trigger(name)
    eventually(lambda: "working" in ax.client.log(run_id), what="the handler started")

    worker.send_signal(signal.SIGTERM)

    assert worker.wait(15) == 0, worker.log_path.read_text()
    run = ax.client.run(run_id)
    assert run["state"] == "SUCCESS" and run["message"] == "finished" and run["attempt"] == 1
    assert ax.client.log(run_id) == "working\ndone\n"
    assert f"AX worker {name}-p closed" in worker.log_path.read_text()


def test_a_second_sigterm_stops_the_running_handler_at_once(ax: Ax, name: str, spawn):
    ax.sdk_task(name, "block", name)
    worker = spawn(str(HERE / "worker_proc.py"), ax.url, ax.executor_token, name, f"{name}-p")
    eventually(lambda: f"{name}-p registered" in worker.log_path.read_text(), what="the worker registered")
    run_id = ax.client.trigger(name)
    eventually(lambda: "started on" in ax.client.log(run_id), what="the handler started")

    worker.send_signal(signal.SIGTERM)
    eventually(lambda: "stopping (signal)" in worker.log_path.read_text(), what="the worker began to close")
    worker.send_signal(signal.SIGTERM)

    assert worker.wait(5) == 0, worker.log_path.read_text()  # not its 10 s grace
    # Not reported: the lease expires and AX decides (no retries here: FAILED as EXECUTOR_LOST).
    run = ax.await_state(run_id, "FAILED")
    assert run["failureKind"] == "EXECUTOR_LOST"


def test_the_example_worker_says_hello(ax: Ax, name: str, spawn):
    ax.sdk_task(name, "hello", name)
    worker = spawn(str(SDK / "examples" / "hello_worker.py"), "--server", ax.url, "--token", ax.executor_token,
                   "--group", name, "--id", f"{name}-hello")
    eventually(lambda: "registered" in worker.log_path.read_text(), what="the example worker registered")

    run_id = ax.client.trigger_event(name, {"name": "world"})

    run = ax.await_state(run_id, "SUCCESS")
    assert ax.client.log(run_id) == "hello world\n"
    assert run["message"] == "said hello to world"
    assert run["executorId"] == f"{name}-hello"
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(10) == 0


def test_the_example_worker_says_what_is_wrong_with_its_token(ax: Ax, name: str):
    result = subprocess.run(
        [sys.executable, str(SDK / "examples" / "hello_worker.py"), "--server", ax.url, "--token", "wrong", "--group", name],
        capture_output=True, text=True, timeout=30,
    )
    assert result.returncode == 1
    assert "executor token refused by the server" in result.stderr
