"""docs/protocol.md is what the server says: every request it shows is sent as shown, and every answer it shows is
compared with the server's, field for field.

The document marks its examples with HTML comments: ``<!-- request: NAME -->`` before a request's JSON block,
``<!-- answer: NAME STATUS -->`` before an answer's. The examples follow one run, 42; the test runs the same story
on the session's server and replaces 42 with the real run's id. Values that depend on the server's settings or the
clock (``leaseMillis``, ``heartbeatMillis``, ``scheduledAt``) are compared by type; everything else exactly.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any, Dict, List, Optional, Tuple

import pytest

from ax_sdk._http import Transport
from conftest import REPO, Ax

DOC = REPO / "docs" / "protocol.md"
VARYING = {"leaseMillis", "heartbeatMillis", "scheduledAt"}
_MARKER = re.compile(r"<!-- (request|answer): ([a-z0-9-]+)(?: (\d{3}))?[^>]*-->")


class Doc:
    """The marked examples of docs/protocol.md."""

    def __init__(self, text: str) -> None:
        self.requests: Dict[str, Optional[str]] = {}
        self.answers: Dict[str, Tuple[int, str]] = {}
        lines = text.split("\n")
        for i, line in enumerate(lines):
            match = _MARKER.search(line)
            if not match:
                continue
            kind, name, status = match.groups()
            block = _block_after(lines, i)
            if kind == "request":
                self.requests[name] = block
            else:
                assert block is not None, f"answer {name} has no JSON block after its marker"
                self.answers[name] = (int(status), block)
        self.used: List[str] = []

    def request(self, name: str, run_id: int) -> Dict[str, Any]:
        self.used.append(f"request:{name}")
        block = self.requests[name]
        assert block is not None, f"request {name} has no JSON block"
        return json.loads(_for_run(block, run_id))

    def answer(self, name: str, run_id: int) -> Tuple[int, Any]:
        self.used.append(f"answer:{name}")
        status, block = self.answers[name]
        return status, json.loads(_for_run(block, run_id))

    def marked(self) -> List[str]:
        return [f"request:{n}" for n in self.requests] + [f"answer:{n}" for n in self.answers]


def _block_after(lines: List[str], i: int) -> Optional[str]:
    """The ```json block that starts on the line after a marker, if one does."""
    if i + 1 >= len(lines) or lines[i + 1].strip() != "```json":
        return None
    end = lines.index("```", i + 2)
    return "\n".join(lines[i + 2 : end])


def _for_run(text: str, run_id: int) -> str:
    """The example's run 42 as the test's run."""
    text = re.sub(r'("instanceId":\s*)42\b', rf"\g<1>{run_id}", text)
    return text.replace("ax-42", f"ax-{run_id}").replace("run 42", f"run {run_id}")


def same(documented: Any, real: Any, path: str = "") -> List[str]:
    """Where the server's answer differs from the documented one."""
    key = path.rsplit(".", 1)[-1]
    if isinstance(documented, dict) and isinstance(real, dict):
        problems = []
        if set(documented) != set(real):
            problems.append(f"{path or 'answer'}: documented fields {sorted(documented)}, the server's {sorted(real)}")
        for k in set(documented) & set(real):
            problems += same(documented[k], real[k], f"{path}.{k}" if path else k)
        return problems
    if isinstance(documented, list) and isinstance(real, list):
        if len(documented) != len(real):
            return [f"{path}: documented {len(documented)} elements, the server sent {len(real)}: {real}"]
        return [p for i, (d, r) in enumerate(zip(documented, real)) for p in same(d, r, f"{path}[{i}]")]
    if key in VARYING:
        return [] if type(documented) is type(real) else [f"{path}: documented {documented!r}, the server {real!r}"]
    return [] if documented == real and type(documented) is type(real) else [
        f"{path}: documented {documented!r}, the server sent {real!r}"]


class Raw:
    """Protocol calls as plain HTTP: the documented body goes out byte for byte as JSON."""

    def __init__(self, ax: Ax, token: str) -> None:
        self.transport = Transport([ax.url], token)

    def call(self, name: str, body: Any) -> Tuple[int, Any]:
        response = self.transport.request("POST", f"/api/executor/{name}", json.dumps(body).encode(), timeout=30)
        return response.status, response.json()


def test_every_documented_exchange_is_what_the_server_says(ax: Ax):
    doc = Doc(DOC.read_text())
    raw = Raw(ax, ax.executor_token)
    problems: List[str] = []

    def check(answer: str, run_id: int, got: Tuple[int, Any]) -> None:
        status, body = doc.answer(answer, run_id)
        if got[0] != status:
            problems.append(f"{answer}: documented status {status}, the server answered {got[0]}: {got[1]}")
        problems.extend(f"{answer}: {p}" for p in same(body, got[1]))

    ax.client.apply({"taskName": "charge_customers", "trigger": {"type": "event"},
                     "action": {"type": "sdk", "handler": "chargeCustomers", "group": "billing"},
                     "policy": {"timeoutSeconds": 600}})

    check("register", 0, raw.call("register", doc.request("register", 0)))
    run_id = ax.client.trigger_event("charge_customers", {"day": "2026-12-04"})
    check("poll", run_id, raw.call("poll", doc.request("poll", run_id)))

    # The test server's lease is 2 s: keep it renewed while the story goes on (the documented heartbeat is one of
    # these, checked below).
    heartbeat = doc.request("heartbeat", run_id)
    stop = threading.Event()
    renewer = threading.Thread(target=lambda: [raw.call("heartbeat", heartbeat) for _ in iter(lambda: stop.wait(0.3),
                                                                                             True)], daemon=True)
    renewer.start()
    try:
        check("heartbeat", run_id, raw.call("heartbeat", heartbeat))
        check("started", run_id, raw.call("started", doc.request("started", run_id)))
        log = doc.request("log", run_id)
        check("log", run_id, raw.call("log", log))
        check("approval-request", run_id, raw.call("approval-request", doc.request("approval-request", run_id)))
        state = doc.request("run-state", run_id)
        check("run-state-waiting", run_id, raw.call("run-state", state))
        ax.client.approve(run_id)
        check("run-state-running", run_id, raw.call("run-state", state))
        complete = doc.request("complete", run_id)
        check("complete", run_id, raw.call("complete", complete))
    finally:
        stop.set()
        renewer.join()
    assert doc.requests["complete-again"] is None, "complete-again sends the complete request's body"
    doc.used.append("request:complete-again")
    check("complete-again", run_id, raw.call("complete", complete))
    check("run-state-ended", run_id, raw.call("run-state", state))
    doc.used.append("request:log-late")
    check("log-late", run_id, raw.call("log", log))

    check("error-400", 0, raw.call("heartbeat", doc.request("error-400", 0)))
    check("error-401", 0, Raw(ax, "not-a-token").call("register", doc.request("register", 0)))
    limited = ax.client._json("POST", "/api/tokens", {"name": "exec-billing", "role": "executor",
                                                      "groups": ["billing"]})["token"]
    check("error-403", 0, Raw(ax, limited).call("poll", {"executorId": "billing-worker-2", "groups": ["payments"],
                                                         "max": 1, "waitMillis": 0}))

    assert problems == [], "docs/protocol.md differs from the server:\n" + "\n".join(problems)
    assert sorted(set(doc.used)) == sorted(doc.marked()), "every marked example is checked"

    run = ax.client.run(run_id)
    assert (run["state"], run["message"], run["executorId"], run["pid"]) == (
        "SUCCESS", "charged 3 customers", "billing-worker-1", 4242)
    assert ax.client.log(run_id) == "charging 3 customers for 2026-12-04\nc-7: 40.00 EUR\nc-9: 80.00 EUR\ndone\n"
    assert "REPORT_REFUSED" in ax.event_types(run_id)


@pytest.mark.parametrize("call", ["register", "poll", "heartbeat", "started", "log", "complete", "approval-request",
                                  "run-state"])
def test_every_call_of_the_protocol_is_documented(call: str):
    text = DOC.read_text()
    assert f"### {call}\n" in text
    assert f"<!-- request: {call}" in text
