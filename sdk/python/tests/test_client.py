"""The REST client against the real server: apply, trigger with idempotency keys (and lost answers), read, wait."""

from __future__ import annotations

from typing import Any, List

import pytest

from ax_sdk import AxClientError, Client, Unanswered
from conftest import Ax


def test_apply_creates_a_task_then_updates_it_as_a_new_version(ax: Ax, name: str):
    task = {"taskName": name, "trigger": {"type": "event"}, "action": {"type": "sdk", "handler": "h", "group": name}}

    created = ax.client.apply(task)
    updated = ax.client.apply(dict(task, policy={"maxRetries": 2}))

    assert created["version"] == 1
    assert updated["version"] == 2
    assert ax.client.task(name)["definition"]["policy"]["maxRetries"] == 2
    assert ax.client.pause(name)["paused"] is True
    assert ax.client.resume(name)["paused"] is False


def test_the_same_idempotency_key_makes_one_run_and_other_params_are_refused(ax: Ax, name: str):
    ax.sdk_task(name, "h", name)

    first = ax.client.trigger(name, {"order": 7}, idempotency_key=f"ship-{name}")
    again = ax.client.trigger(name, {"order": 7}, idempotency_key=f"ship-{name}")
    with pytest.raises(AxClientError) as refused:
        ax.client.trigger(name, {"order": 8}, idempotency_key=f"ship-{name}")

    assert first == again
    assert refused.value.status == 422
    assert len(ax.client.runs(name)) == 1
    event = ax.client.trigger_event(name, {"order": 7}, idempotency_key=f"event-{name}")
    assert ax.client.trigger_event(name, {"order": 7}, idempotency_key=f"event-{name}") == event
    assert ax.client.run(event)["cause"] == "event"


def test_a_trigger_whose_answer_was_lost_is_sent_again_with_its_key_and_makes_one_run(ax: Ax, name: str):
    ax.sdk_task(name, "h", name)
    client = Client(ax.url, ax.admin_token)
    sent = _lose_first_answer(client)

    run_id = client.trigger(name, {"order": 9})

    assert len(sent) == 2, "sent twice"
    assert sent[0] == sent[1], "with the same Idempotency-Key"
    assert [r["id"] for r in ax.client.runs(name)] == [run_id]


def test_a_trigger_that_is_never_answered_gives_up_saying_its_key():
    client = Client("http://127.0.0.1:9", "token")
    with pytest.raises(AxClientError) as failed:
        client.trigger("t", idempotency_key="order-7")
    assert failed.value.status == 0
    assert "no answer after 4 attempts with Idempotency-Key order-7" in str(failed.value)
    with pytest.raises(ValueError, match="printable ASCII"):
        client.trigger("t", idempotency_key="ünïcode")


def test_errors_carry_the_status_and_the_servers_message(ax: Ax, name: str):
    with pytest.raises(AxClientError) as missing:
        ax.client.run(987654321)
    assert missing.value.status == 404
    with pytest.raises(AxClientError) as invalid:
        ax.client.apply({"taskName": name, "trigger": {"type": "cron", "expression": "nope"},
                         "action": {"type": "sdk", "handler": "h", "group": name}})
    assert invalid.value.status == 400
    assert "trigger.expression" in str(invalid.value)
    with pytest.raises(AxClientError) as refused:
        Client(ax.url, "wrong").task(name)
    assert refused.value.status == 401


def test_wait_returns_the_run_once_it_ended_or_times_out(ax: Ax, name: str, make_worker):
    ax.sdk_task(name, "h", name)
    run_id = ax.client.trigger(name)
    with pytest.raises(TimeoutError, match=f"run {run_id} is still READY"):
        ax.client.wait(run_id, timeout=0.3)

    make_worker(name, {"h": lambda ctx: "ok"})

    run = ax.client.wait(run_id, timeout=20)
    assert run["state"] == "SUCCESS"
    assert [e["type"] for e in ax.client.events(run_id)][-1] == "SUCCEEDED"
    assert ax.client.log(run_id) == ""


def _lose_first_answer(client: Client) -> List[str]:
    """The first trigger reaches the server, which makes the run; its answer is lost on the way back."""
    transport = client._transport
    real = transport.request
    keys: List[str] = []

    def request(method: str, path: str, *args: Any, **kwargs: Any):
        if path.endswith("/trigger"):
            keys.append(kwargs["headers"]["Idempotency-Key"])
            answer = real(method, path, *args, **kwargs)
            if len(keys) == 1:
                raise Unanswered("connection reset (test)")
            return answer
        return real(method, path, *args, **kwargs)

    transport.request = request
    return keys
